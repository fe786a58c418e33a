import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

/// `--single-project-mode`: a path naming another project is refused.
@Suite struct SingleProjectModeTests {
    @Test func anotherProjectIsRefusedOnlyInSingleProjectMode() async throws {
        try await withEmulator(configure: { $0.singleProjectMode = true }) { (h: Harness) async throws in
            let other = try await h.raw(.get, "/emulator/v1/projects/someproject/config")
            #expect(other.status == 400 && other.errorMessage?.contains("single project mode") == true)
            let session = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/projects/someproject:createSessionCookie",
                body: Data("{}".utf8), headers: Harness.owner)
            #expect(session.status == 400)
            #expect(try await h.raw(.get, "/emulator/v1/projects/\(Harness.project)/config").status == 200)
        }
        try await withEmulator { (h: Harness) async throws in
            #expect(try await h.raw(.get, "/emulator/v1/projects/someproject/config").status == 200)
        }
    }
}
