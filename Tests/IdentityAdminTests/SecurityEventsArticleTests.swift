import Foundation
import IdentityOTP
import IdentityToolkitTestSupport
import Testing

/// IdentityOTP's "Security events" section: its snippet is
/// SecurityEventsSnippet.swift verbatim, and does what the section says.
@Suite struct SecurityEventsArticleTests {
    @Test func theArticleShowsTheCompiledSnippet() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        #expect(
            try DocSnippet.shows(
                here.appendingPathComponent("SecurityEventsSnippet.swift"),
                in: "Sources/IdentityOTP/IdentityOTP.docc/IdentityOTP.md"))
    }

    /// A phone 90 s fast: the third sign-in in a row says so, and the audit
    /// log holds the drift; a wrong code is a refusal in the log.
    @Test func theSnippetReportsADriftingClock() async throws {
        let totp = try TOTP(key: Array("12345678901234567890".utf8))
        let (store, offsets, log) = (
            ExpiringStateTOTPVerificationStore(), ExpiringStateTOTPClockOffsetStore(), AppendOnlySecurityEventLog()
        )
        let user = UserKey(uid: "ada", tenantID: "shop")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var answers: [String] = []
        try await SecurityEventSystem.withSink(log) {
            for day in 0..<3 {
                let now = start.addingTimeInterval(Double(day) * 86_400)
                answers.append(
                    try await checkCode(
                        try totp.code(at: now.addingTimeInterval(90)), of: user, totp: totp, store: store,
                        offsets: offsets, at: now))
            }
            answers.append(
                try await checkCode(
                    "000000", of: user, totp: totp, store: store, offsets: offsets,
                    at: start.addingTimeInterval(4 * 86_400)))
        }
        #expect(
            answers == [
                "signed in", "signed in", "signed in; your phone's clock is about 90 seconds fast", "wrong code",
            ])
        #expect(try await log.recentEvents(for: user, limit: 10).map(\.kind) == [.codeRefused, .clockDriftNoticed])
    }
}
