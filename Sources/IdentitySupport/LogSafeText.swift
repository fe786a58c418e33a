/// Text from outside (a token header's `kid`, a claim, a server's message)
/// made safe to put in an error message or a log line: every character
/// outside printable ASCII is written as `\u{…}`, so a value cannot end a
/// log line, forge another one, move the cursor or reorder text, and the
/// length is bounded so a hostile value cannot flood a log.
package enum LogSafeText {
    /// The most characters of a value kept, before the escapes.
    package static let defaultLimit = 128

    /// `text` with non-printable and non-ASCII characters escaped and at
    /// most `limit` of its characters kept (then `…` marks the cut).
    package static func escaping(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        var result = ""
        var kept = 0
        for scalar in text.unicodeScalars {
            guard kept < limit else {
                result += "…"
                break
            }
            kept += 1
            if (0x20...0x7E).contains(scalar.value) && scalar != "\\" {
                result.unicodeScalars.append(scalar)
            } else if scalar == "\\" {
                result += "\\\\"
            } else {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return result
    }
}
