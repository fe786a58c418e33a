import Foundation
import IdentityToolkit
import Testing

@testable import IdentityToolkitEmulator
@testable import MultiFactorAuth

/// One table (`Spec/errors.yaml`) gives the server its error vocabulary and
/// the client its mapping: every code a server here can send either maps
/// to an `AuthErrorCode`, or is marked `internal` in the table on purpose.
@Suite struct ServerVocabularyTests {
    @Test func everyCodeTheServerSendsMapsOrIsMarked() {
        #expect(APIServerError.allKnownCodes.count > 100)
        var unmapped: [String] = []
        for code in APIServerError.allKnownCodes {
            let mapped = AuthErrorCode.Code(serverCode: code)
            if mapped == nil && !APIServerError.codesWithoutClientMapping.contains(code) { unmapped.append(code) }
            if mapped != nil {
                #expect(
                    !APIServerError.codesWithoutClientMapping.contains(code), "\(code) is mapped and marked internal")
            }
        }
        #expect(unmapped.isEmpty, "mapped to internalError without being marked: \(unmapped)")
    }

    /// The emulator throws generated cases: a code it sends reaches the client as the table says.
    @Test func generatedCasesCarryTheirStatusAndCode() {
        #expect(APIServerError.userNotFound.shortCode == "USER_NOT_FOUND" && APIServerError.userNotFound.status == 400)
        #expect(APIServerError.weakPassword("too short").message == "WEAK_PASSWORD : too short")
        #expect(APIServerError.unauthenticated.status == 401)
        let mapped = AuthErrorMapping.map(
            IdentityToolkitError.server(ServerError(status: 400, message: APIServerError.missingPassword.message)))
        #expect((mapped as? AuthErrorCode)?.code == .wrongPassword)
    }
}
