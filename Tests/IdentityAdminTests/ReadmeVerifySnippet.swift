// A README snippet, verbatim (ReadmeSnippetTests compares them): what a server checks.
import IdentityAdmin

/// A request's ID token checked, a session cookie made and checked, a lost
/// authenticator handled, and users paged through.
func serverSide(admin: IdentityAdmin, idToken: String) async throws {
    let token = try await admin.verifyIDToken(idToken, checkRevoked: true)
    try token.requireSecondFactor(maximumAuthenticationAge: .seconds(300)) // "totp" when the sign-in used TOTP
    print(token.uid, token.signInSecondFactor ?? "-", token.tenant ?? "-", token.claims["role"] ?? "-")

    // A web server's session: an HttpOnly cookie checked on every request.
    let cookie = try await admin.createSessionCookie(idToken, expiresIn: .seconds(14 * 24 * 3600))
    let session = try await admin.verifySessionCookie(cookie, checkRevoked: true)

    // A lost authenticator: see the factors, remove them, end every session.
    let user = try await admin.getUser(uid: session.uid)
    _ = try await admin.updateUser(user.uid, UpdateUserRequest(enrolledFactors: []))
    try await admin.revokeRefreshTokens(uid: user.uid)

    // Users: page through, custom claims; the same for a tenant.
    for try await user in admin.allUsers() where !user.multiFactor.enrolledFactors.isEmpty { print(user.uid) }
    try await admin.setCustomUserClaims(user.uid, ["role": .string("support")])
    let shop = admin.tenantManager().authForTenant("shop-1a2b3") // TenantAwareAuth: the same API, scoped
    _ = try await shop.getUser(email: "ada@example.com")
}
