package import Foundation

/// Reads a file or stream that should be small, with a ceiling: more than
/// the ceiling is refused by the caller, never cut short in silence nor
/// read without end (a key file named `/dev/zero`, a token piped from a
/// runaway program).
package enum BoundedRead {
    /// Everything `handle` gives up to its end, or nil once it gives more
    /// than `limit` bytes (reading at most `limit + 1`).
    package static func contents(of handle: FileHandle, atMost limit: Int) throws -> Data? {
        var data = Data()
        while data.count <= limit, let chunk = try handle.read(upToCount: limit + 1 - data.count), !chunk.isEmpty {
            data += chunk
        }
        return data.count > limit ? nil : data
    }

    /// The file at `path`, or nil if it holds more than `limit` bytes.
    package static func contents(ofFile path: String, atMost limit: Int) throws -> Data? {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        return try contents(of: handle, atMost: limit)
    }
}
