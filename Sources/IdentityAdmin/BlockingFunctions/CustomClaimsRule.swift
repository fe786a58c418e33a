import Foundation
import IdentityToolkit

/// The one home of Identity Platform's rule for custom claims: none of a
/// token's own claims (`ReservedClaimName`), at most 1000 characters of
/// JSON. ``BaseAuth/setCustomUserClaims(_:_:)`` and blocking functions'
/// answers apply it.
enum CustomClaimsRule {
    /// `claims` as the JSON text the server stores.
    /// - Throws: ``AdminValidationError`` naming `field`.
    @discardableResult
    static func text(of claims: [String: JSONValue], field: String) throws(AdminValidationError) -> String {
        for reserved in ReservedClaimName.allKnownValues where claims[reserved.rawValue] != nil {
            throw AdminValidationError(field: field, message: "must not set the reserved claim \"\(reserved.rawValue)\"")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = (try? encoder.encode(claims)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard text.count <= IdentityPlatformLimits.maximumCustomClaimsLength else {
            throw AdminValidationError(field: field, message: "must be at most \(IdentityPlatformLimits.maximumCustomClaimsLength) characters of JSON, not \(text.count)")
        }
        return text
    }

    /// A blocking function's update: each set of claims, and both together
    /// (they share one ID token).
    static func check(_ update: BlockingFunctionUpdate) throws(AdminValidationError) {
        if let custom = update.customClaims { try text(of: custom, field: "customClaims") }
        if let session = update.sessionClaims {
            try text(of: session, field: "sessionClaims")
            try text(of: (update.customClaims ?? [:]).merging(session) { _, session in session }, field: "customClaims+sessionClaims")
        }
    }
}
