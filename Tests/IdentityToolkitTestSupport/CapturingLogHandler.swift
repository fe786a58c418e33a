#if AsyncHTTPClient
import Foundation
public import Logging

/// The lines a logger wrote, for tests that check what logs hold (and what
/// they never hold: a code, a token).
public final class LogRecords: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    /// An empty record.
    public init() {}
    /// Adds a line.
    public func append(_ line: String) { lock.withLock { stored.append(line) } }
    /// Every line so far.
    public var lines: [String] { lock.withLock { stored } }
}

/// A log handler that writes each event, with its metadata, to ``LogRecords``.
public struct CapturingLogHandler: LogHandler {
    let records: LogRecords
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    /// A handler writing to `records`.
    public init(records: LogRecords) { self.records = records }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        records.append("\(event.level) \(event.message) \(event.metadata ?? [:]) \(metadata)")
    }
}
#endif
