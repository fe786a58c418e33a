package import Foundation

extension APIServerRequest {
    /// The fields of an `application/x-www-form-urlencoded` body (the first
    /// value of each name), decoded once, with `+` as a space as the WHATWG
    /// URL standard's form parsing has it.
    package static func formFields(_ body: Data) throws -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                throw APIServerError.undecodableRequest("malformed form body")
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }
}
