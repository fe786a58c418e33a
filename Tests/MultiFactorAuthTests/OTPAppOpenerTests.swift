import Foundation
import Testing

@testable import MultiFactorAuth

/// `openInOTPApp` never puts the otpauth URI (the secret) on a command line:
/// on a server it opens nothing unless the app installs an opener.
@Suite struct OTPAppOpenerTests {
    final class Recorder: OTPAppURLOpener, @unchecked Sendable {
        var opened: [String] = []
        func open(_ url: String) { opened.append(url) }
    }

    @Test func withoutAnOpenerNothingIsOpened() {
        #if !canImport(AppKit)
        #expect(TOTPSecret.defaultOpener == nil)
        #endif
        #expect(TOTPSecret.open("otpauth://totp/x?secret=JBSWY3DP", with: nil) == false)
        let recorder = Recorder()
        #expect(TOTPSecret.open("otpauth://totp/x?secret=JBSWY3DP", with: recorder) == true)
        #expect(recorder.opened == ["otpauth://totp/x?secret=JBSWY3DP"])
    }

    /// No code of MultiFactorAuth starts a process (a command line is
    /// readable by every local user; the URI it would carry holds the secret).
    @Test func theSDKStartsNoProcess() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Sources/MultiFactorAuth")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(
                !text.contains("Process()") && !text.contains("posix_spawn") && !text.contains("executableURL"),
                "\(file)")
        }
    }
}
