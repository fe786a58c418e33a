package import Foundation
import IdentityToolkitJWT

// The claim rules live on the claims types in IdentityToolkitJWT (one home
// for the verifier, blocking functions and the emulator); here, the
// verified token takes them too, and their refusals become this module's
// error.

extension DecodedIDToken: FirebaseSessionClaims {
    package var authenticatedAt: Date { authTime }
}

extension TokenVerificationError {
    /// The refusal of a claim rule, with its details.
    init(claimFailure failure: ClaimFailure) {
        switch failure {
        case .wrongAudience(let expected, let found): self = .wrongAudience(expected: expected, found: found)
        case .wrongIssuer(let expected, let found): self = .wrongIssuer(expected: expected, found: found)
        case .expired(let date): self = .expired(at: date)
        case .issuedInTheFuture(let date): self = .issuedInTheFuture(at: date)
        case .authenticatedInTheFuture(let date): self = .authenticatedInTheFuture(at: date)
        case .tenantMismatch(let expected, let found): self = .tenantMismatch(expected: expected, found: found)
        }
    }
}
