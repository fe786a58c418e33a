import Foundation
import IdentityToolkit
import IdentityToolkitJWT
import Testing

/// The claim rules' one home (IdentityToolkitJWT), as the verifier,
/// blocking functions and the emulator all apply them.
@Suite struct ClaimRulesTests {
    static let issued: Int64 = 1_800_000_000

    func claims(issuer: TokenIssuerPrefix = .idToken, authTime: Int64 = issued, tenant: String? = nil) -> IDTokenClaims
    {
        IDTokenClaims(
            iss: issuer.rawValue + "p", aud: "p", authTime: authTime, userID: "u", sub: "u", iat: Self.issued,
            exp: Self.issued + 3600,
            firebase: FirebaseSignInClaims(identities: [:], signInProvider: "password", tenant: tenant))
    }

    func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: TimeInterval(Self.issued) + seconds) }

    @Test func expiryIsTheFirstInstantPastExp() throws {
        try claims().verifyNotExpired(at: at(3599.999))
        #expect(throws: ClaimFailure.expired(at: at(3600))) { try claims().verifyNotExpired(at: at(3600)) }
    }

    @Test func issuedAndSignedInTimesMayLeadByTheSkewOnly() throws {
        try claims().verifyLifetime(at: at(-5), clockSkew: .seconds(5))
        #expect(throws: ClaimFailure.issuedInTheFuture(at: at(0))) {
            try claims().verifyLifetime(at: at(-5.001), clockSkew: .seconds(5))
        }
        let late = claims(authTime: Self.issued + 60)
        #expect(throws: ClaimFailure.authenticatedInTheFuture(at: at(60))) {
            try late.verifyTimesAndTenant(at: at(10), clockSkew: .seconds(5), tenant: nil)
        }
    }

    @Test func audienceIsCheckedBeforeIssuerAndTenantWhenRequired() throws {
        #expect(throws: ClaimFailure.wrongAudience(expected: "q", found: "p")) {
            try claims(issuer: .sessionCookie).verifyIssuer("x", audience: "q")
        }
        #expect(throws: ClaimFailure.wrongIssuer(expected: "x", found: TokenIssuerPrefix.sessionCookie.rawValue + "p"))
        {
            try claims(issuer: .sessionCookie).verifyIssuer("x", audience: "p")
        }
        try claims(tenant: "t").verifyTenant(nil)
        #expect(throws: ClaimFailure.tenantMismatch(expected: "t", found: nil)) { try claims().verifyTenant("t") }
    }

    @Test func aSessionCookieIsNoIDToken() {
        #expect(claims().isIssued(as: .idToken) && !claims().isIssued(as: .sessionCookie))
        #expect(
            claims(issuer: .sessionCookie).isIssued(as: .sessionCookie)
                && !claims(issuer: .sessionCookie).isIssued(as: .idToken))
    }

    /// A revocation at 12.7 s past `iat`'s second revokes tokens of earlier
    /// seconds only: `iat` is whole seconds.
    @Test func aTokenIssuedBeforeARevocationIsRevoked() {
        #expect(claims().isIssued(notBefore: at(0.7)))
        #expect(claims().isIssued(notBefore: at(-1)))
        #expect(!claims().isIssued(notBefore: at(1)))
    }
}
