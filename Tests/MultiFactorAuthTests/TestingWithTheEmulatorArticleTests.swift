import Foundation
import IdentityToolkitTestSupport
import Testing

/// MultiFactorAuth's "Testing with the emulator" article shows its test
/// verbatim (the test itself is `aUserEnrollsTOTPAndSignsInWithIt`).
@Suite struct TestingWithTheEmulatorArticleTests {
    @Test func theArticleShowsTheCompiledTest() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        #expect(
            try DocSnippet.shows(
                here.appendingPathComponent("TestingWithTheEmulatorSnippet.swift"),
                in: "Sources/MultiFactorAuth/MultiFactorAuth.docc/TestingWithTheEmulator.md"))
    }
}
