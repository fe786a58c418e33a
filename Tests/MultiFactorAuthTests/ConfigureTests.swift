import Foundation
import Testing

@testable import MultiFactorAuth

/// `FirebaseOptions(contentsOfFile:)` reads a GoogleService-Info.plist as
/// the Firebase console writes it; `FirebaseApp.configure()` finds one in the
/// working directory.
@Suite struct ConfigureTests {
    static let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>API_KEY</key><string>AIzaSyTest-Key</string>
            <key>GCM_SENDER_ID</key><string>123456789012</string>
            <key>PLIST_VERSION</key><string>1</string>
            <key>BUNDLE_ID</key><string>com.example.app</string>
            <key>PROJECT_ID</key><string>demo-plist</string>
            <key>IS_ADS_ENABLED</key><false/>
            <key>GOOGLE_APP_ID</key><string>1:123456789012:ios:abcdef</string>
        </dict>
        </plist>
        """

    /// A second `configure` of the same app changes nothing and says why;
    /// `delete()` then `configure` replaces it.
    @Test func configuringAnAppTwiceIsRefusedAndSaysWhy() throws {
        let name = "twice-\(UUID().uuidString)"
        let first = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        first.apiKey = "first"
        let second = FirebaseOptions(googleAppID: "1:1:ios:2", gcmSenderID: "2")
        second.apiKey = "second"
        FirebaseApp.configure(name: name, options: first)
        FirebaseApp.configure(name: name, options: second)
        #expect(FirebaseApp.app(name: name)?.options.apiKey == "first")
        let message = FirebaseApp.alreadyConfiguredMessage(name: name)
        #expect(message.contains("'\(name)' is already configured") && message.contains("delete()"), "\(message)")
        #expect(
            FirebaseApp.alreadyConfiguredMessage(name: FirebaseApp.defaultAppName).contains(
                "the default app is already configured"))
        FirebaseApp.app(name: name)?.delete()
        FirebaseApp.configure(name: name, options: second)
        #expect(FirebaseApp.app(name: name)?.options.apiKey == "second")
        FirebaseApp.app(name: name)?.delete()
    }

    @Test func optionsComeFromAPlist() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("GoogleService-Info.plist").path
        try Data(Self.plist.utf8).write(to: URL(fileURLWithPath: path))
        let options = try #require(FirebaseOptions(contentsOfFile: path))
        #expect(options.apiKey == "AIzaSyTest-Key" && options.projectID == "demo-plist")
        #expect(options.googleAppID == "1:123456789012:ios:abcdef" && options.gcmSenderID == "123456789012")

        // Missing, unreadable or incomplete files give nil.
        #expect(FirebaseOptions(contentsOfFile: folder.appendingPathComponent("nope.plist").path) == nil)
        let broken = folder.appendingPathComponent("broken.plist").path
        try Data("not a plist".utf8).write(to: URL(fileURLWithPath: broken))
        #expect(FirebaseOptions(contentsOfFile: broken) == nil)
        let incomplete = folder.appendingPathComponent("incomplete.plist").path
        try Data(Self.plist.replacingOccurrences(of: "<key>GOOGLE_APP_ID</key>", with: "<key>OTHER</key>").utf8).write(
            to: URL(fileURLWithPath: incomplete))
        #expect(FirebaseOptions(contentsOfFile: incomplete) == nil)

        // configure()'s search: the main bundle's file, else the working directory's.
        #expect(
            FirebaseOptions.defaultOptions(bundlePath: nil, workingDirectory: folder.path)?.projectID == "demo-plist")
        #expect(
            FirebaseOptions.defaultOptions(bundlePath: broken, workingDirectory: folder.path)?.projectID == "demo-plist"
        )
        #expect(
            FirebaseOptions.defaultOptions(
                bundlePath: nil, workingDirectory: folder.appendingPathComponent("empty").path) == nil)
    }
}
