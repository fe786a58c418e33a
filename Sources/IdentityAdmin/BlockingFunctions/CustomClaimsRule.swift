import Foundation
import IdentityToolkit

/// Identity Platform's rule for custom claims (IdentityToolkit's
/// `CustomClaimsProblem`) as IdentityAdmin reports it:
/// ``BaseAuth/setCustomUserClaims(_:_:)`` and blocking functions' answers.
enum CustomClaimsRule {
    /// `claims` as the JSON text the server stores.
    /// - Throws: ``AdminValidationError`` naming `field`.
    @discardableResult
    static func text(of claims: [String: JSONValue], field: String) throws(AdminValidationError) -> String {
        switch CustomClaimsProblem.check(claims) {
        case .success(let text): return text
        case .failure(.reservedClaim(let name)):
            throw AdminValidationError(field: field, message: "must not set the reserved claim \"\(name)\"")
        case .failure(.tooLong(let characters)):
            throw AdminValidationError(
                field: field,
                message:
                    "must be at most \(IdentityPlatformLimits.maximumCustomClaimsLength) characters of JSON, not \(characters)"
            )
        }
    }

    /// A blocking function's update: each set of claims, and both together
    /// (they share one ID token).
    static func check(_ update: BlockingFunctionUpdate) throws(AdminValidationError) {
        if let custom = update.customClaims { try text(of: custom, field: "customClaims") }
        if let session = update.sessionClaims {
            try text(of: session, field: "sessionClaims")
            try text(
                of: (update.customClaims ?? [:]).merging(session) { _, session in session },
                field: "customClaims+sessionClaims")
        }
    }
}
