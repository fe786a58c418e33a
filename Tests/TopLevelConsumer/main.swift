// An app's small tool written as many are: top-level code in a `main.swift`,
// no `@main` type, and every async method of MultiFactorAuth and
// IdentityAdmin awaited as a reader of the docs would write it — no type
// annotation, often no use of the result. `TopLevelAwaitTests` runs it
// against an emulator and checks that each method ran before the next line.
//
// Top-level code needs no `async` context for a synchronous call, so with a
// completion twin whose completion defaults to nil, `try await user.reload()`
// would compile to that twin: it returns at once, the work runs unawaited,
// and the compiler only warns. No twin here has that default, so each line
// below is the async method. Each prints `ran <name>` after checking the
// call's effect, so a call that returned early fails the run.
//
//   every-async-method ADMIN_EMAIL   the whole tour (the emulator's project
//                                    is PROJECT_ID, its host
//                                    FIREBASE_AUTH_EMULATOR_HOST)
//   get-user EMAIL                   one admin lookup (the environment tests)
import Foundation
import IdentityAdmin
import IdentityOTP
import IdentityToolkit
import MultiFactorAuth

let environment = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())
let project = environment["PROJECT_ID"] ?? "demo-mfa"
let admin = IdentityAdmin(projectID: project, credential: EmulatorOwnerCredential())

/// Ends the run with a message on standard error when a call's effect is missing.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        FileHandle.standardError.write(Data("check failed: \(message())\n".utf8))
        exit(1)
    }
}

func ran(_ method: String) { print("ran \(method)") }

guard arguments.first == "every-async-method" else {
    let user = try await admin.getUser(email: arguments.dropFirst().first ?? arguments.first ?? "")
    print("found \(user)")
    exit(0)
}

// MARK: IdentityAdmin: the project and its tenants

let configs = admin.projectConfigManager()
let totpOn = MultiFactorConfig(
    state: .enabled,
    providerConfigs: [
        MultiFactorProviderConfig(
            state: .enabled, totpProviderConfig: TOTPMultiFactorProviderConfig(adjacentIntervals: 1))
    ])
let updatedConfig = try await configs.updateProjectConfig(UpdateProjectConfigRequest(multiFactorConfig: totpOn))
check(
    updatedConfig.multiFactorConfig?.providerConfigs?.first?.totpProviderConfig?.adjacentIntervals == 1,
    "\(updatedConfig)")
ran("ProjectConfigManager.updateProjectConfig(_:)")
let config = try await configs.getProjectConfig()
check(config == updatedConfig, "\(config)")
ran("ProjectConfigManager.getProjectConfig()")

let tenants = admin.tenantManager()
let tenant = try await tenants.createTenant(TenantRequest(displayName: "top-level"))
check(!tenant.tenantID.isEmpty, "\(tenant)")
ran("TenantManager.createTenant(_:)")
let renamed = try await tenants.updateTenant(tenant.tenantID, TenantRequest(displayName: "renamed"))
check(renamed.displayName == "renamed", "\(renamed)")
ran("TenantManager.updateTenant(_:_:)")
let fetchedTenant = try await tenants.getTenant(tenant.tenantID)
check(fetchedTenant.displayName == "renamed", "\(fetchedTenant)")
ran("TenantManager.getTenant(_:)")
let tenantPage = try await tenants.listTenants(pageSize: 10, pageToken: nil)
check(tenantPage.tenants.contains { $0.tenantID == tenant.tenantID }, "\(tenantPage)")
ran("TenantManager.listTenants(pageSize:pageToken:)")
try await tenants.deleteTenant(tenant.tenantID)
let remaining = try await tenants.listTenants(pageSize: 10, pageToken: nil)
check(!remaining.tenants.contains { $0.tenantID == tenant.tenantID }, "\(remaining)")
ran("TenantManager.deleteTenant(_:)")

// MARK: IdentityAdmin: users

let adminEmail = arguments.dropFirst().first ?? "top-level@example.com"
let created = try await admin.createUser(CreateUserRequest(email: adminEmail, password: "correct horse battery"))
check(created.email == adminEmail, "\(created)")
ran("BaseAuth.createUser(_:)")
let updated = try await admin.updateUser(created.uid, UpdateUserRequest(displayName: "Top Level"))
check(updated.displayName == "Top Level", "\(updated)")
ran("BaseAuth.updateUser(_:_:)")
let byUID = try await admin.getUser(uid: created.uid)
check(byUID.displayName == "Top Level", "\(byUID)")
ran("BaseAuth.getUser(uid:)")
let byEmail = try await admin.getUser(email: adminEmail)
check(byEmail.uid == created.uid, "\(byEmail)")
ran("BaseAuth.getUser(email:)")
try await admin.setCustomUserClaims(created.uid, ["role": .string("auditor")])
let claimed = try await admin.getUser(uid: created.uid)
check(claimed.customClaims?["role"] == .string("auditor"), "\(claimed)")
ran("BaseAuth.setCustomUserClaims(_:_:)")
let userPage = try await admin.listUsers(pageSize: 100, pageToken: nil)
check(userPage.users.contains { $0.uid == created.uid }, "\(userPage)")
ran("BaseAuth.listUsers(pageSize:pageToken:)")
let imported = try await admin.importUsers(
    [UserImportRecord(uid: "imported-\(UUID().uuidString.prefix(8))", email: "imported@example.com")], options: nil)
check(imported.successCount == 1 && imported.failureCount == 0, "\(imported)")
ran("BaseAuth.importUsers(_:options:)")

// MARK: MultiFactorAuth: the Firebase-shaped client

let host = environment["FIREBASE_AUTH_EMULATOR_HOST"] ?? "127.0.0.1:9099"
let hostParts = host.split(separator: ":")
let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
options.apiKey = "top-level"
options.projectID = project
FirebaseApp.configure(options: options)
let auth = Auth.auth()
auth.useEmulator(withHost: String(hostParts[0]), port: Int(hostParts[1]) ?? 9099)

let email = "client-\(UUID().uuidString.prefix(8).lowercased())@example.com"
let password = "secret-password"
let signUp = try await auth.createUser(withEmail: email, password: password)
let user = signUp.user
check(auth.currentUser?.uid == user.uid, "no current user after createUser")
ran("Auth.createUser(withEmail:password:)")

let token = try await user.getIDToken()
check(token.split(separator: ".").count == 3, "not a JWT")
ran("User.getIDToken()")
let refreshed = try await user.getIDToken(forcingRefresh: true)
check(!refreshed.isEmpty, "empty token")
ran("User.getIDToken(forcingRefresh:)")
let tokenResult = try await user.getIDTokenResult()
check(tokenResult.claims["email"] as? String == email, "\(tokenResult.claims)")
ran("User.getIDTokenResult()")
let refreshedResult = try await user.getIDTokenResult(forcingRefresh: true)
check(refreshedResult.signInProvider == "password", "\(refreshedResult.signInProvider)")
ran("User.getIDTokenResult(forcingRefresh:)")

let helpers = EmulatorHelpersClient(configuration: ClientConfiguration(emulatorHost: host))
func oobCode(for address: String) async throws -> String? {
    try await helpers.listOobCodes(project: project).oobCodes.last { $0.email == address || $0.newEmail == address }?
        .oobCode
}
try await user.sendEmailVerification()
let verificationCode = try await oobCode(for: email)
check(verificationCode != nil, "no verification code was sent")
ran("User.sendEmailVerification()")
try await auth.applyActionCode(verificationCode ?? "")
let verified = try await admin.getUser(uid: user.uid)
check(verified.emailVerified, "the code was not applied")
ran("Auth.applyActionCode(_:)")
try await user.reload()
check(user.isEmailVerified, "reload did not bring the verified email")
ran("User.reload()")
let newEmail = "moved-\(email)"
try await user.sendEmailVerification(beforeUpdatingEmail: newEmail)
check(try await oobCode(for: newEmail) != nil, "no code for the new address")
ran("User.sendEmailVerification(beforeUpdatingEmail:)")

// TOTP: enrol with the current step's code, sign in with the next step's
// (the project allows one adjacent step; a code is never accepted twice).
func code(_ secret: TOTPSecret, stepsAhead: Int64) throws -> String {
    let totp = try TOTP(key: try Base32.decode(secret.sharedSecretKey()))
    return totp.code(step: try totp.step(at: Int64(Date().timeIntervalSince1970)) + UInt64(stepsAhead))
}
let session = try await user.multiFactor.session()
ran("MultiFactor.session()")
let secret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
check(secret.sharedSecretKey().count >= 16, "short secret")
ran("TOTPMultiFactorGenerator.generateSecret(with:)")
try await user.multiFactor.enroll(
    with: TOTPMultiFactorGenerator.assertionForEnrollment(
        with: secret, oneTimePassword: try code(secret, stepsAhead: 0)),
    displayName: "phone")
check(user.multiFactor.enrolledFactors.count == 1, "\(user.multiFactor.enrolledFactors)")
ran("MultiFactor.enroll(with:displayName:)")

try auth.signOut()
var resolver: MultiFactorResolver?
do {
    _ = try await auth.signIn(withEmail: email, password: password)
} catch let error as AuthErrorCode where error.code == .secondFactorRequired {
    resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver
}
check(resolver != nil, "the password sign-in did not ask for the second factor")
ran("Auth.signIn(withEmail:password:)")
let hint = resolver?.hints.first
let signedIn = try await resolver!.resolveSignIn(
    with: TOTPMultiFactorGenerator.assertionForSignIn(
        withEnrollmentID: hint?.uid ?? "", oneTimePassword: try code(secret, stepsAhead: 1)))
check(signedIn.user.uid == user.uid && auth.currentUser?.uid == user.uid, "not signed in")
ran("MultiFactorResolver.resolveSignIn(with:)")

let current = auth.currentUser!
try await auth.flushSessionStore()
ran("Auth.flushSessionStore()")

// MARK: IdentityAdmin: tokens and sessions

let idToken = try await current.getIDToken(forcingRefresh: true)
let decoded = try await admin.verifyIDToken(idToken, checkRevoked: true)
check(decoded.uid == user.uid, "\(decoded.uid)")
ran("BaseAuth.verifyIDToken(_:checkRevoked:)")
try await admin.checkNotRevoked(decoded)
ran("BaseAuth.checkNotRevoked(_:)")
let cookie = try await admin.createSessionCookie(idToken, expiresIn: .seconds(3600))
check(!cookie.isEmpty, "empty cookie")
ran("BaseAuth.createSessionCookie(_:expiresIn:)")
let fromCookie = try await admin.verifySessionCookie(cookie, checkRevoked: false)
check(fromCookie.uid == user.uid, "\(fromCookie.uid)")
ran("BaseAuth.verifySessionCookie(_:checkRevoked:)")

// MARK: MultiFactorAuth: removing the factor, other sign-ins

let factor = current.multiFactor.enrolledFactors[0]
try await current.multiFactor.unenroll(with: factor)
let afterUnenroll = try await admin.getUser(uid: user.uid)
check(afterUnenroll.multiFactor.enrolledFactors.isEmpty, "\(afterUnenroll)")
ran("MultiFactor.unenroll(with:)")

let reauthenticated = try await current.reauthenticate(
    with: EmailAuthProvider.credential(withEmail: email, password: password))
check(reauthenticated.user.uid == user.uid, "\(reauthenticated.user.uid)")
ran("User.reauthenticate(with:)")

let again = try await auth.signIn(withEmail: email, password: password)
let secondSecret = try await TOTPMultiFactorGenerator.generateSecret(with: try await again.user.multiFactor.session())
try await again.user.multiFactor.enroll(
    with: TOTPMultiFactorGenerator.assertionForEnrollment(
        with: secondSecret, oneTimePassword: try code(secondSecret, stepsAhead: 0)),
    displayName: nil)
let secondFactor = again.user.multiFactor.enrolledFactors[0].uid
try await again.user.multiFactor.unenroll(withFactorUID: secondFactor)
check(again.user.multiFactor.enrolledFactors.isEmpty, "\(again.user.multiFactor.enrolledFactors)")
ran("MultiFactor.unenroll(withFactorUID:)")

let anonymous = try await auth.signInAnonymously()
check(anonymous.user.isAnonymous, "not anonymous")
ran("Auth.signInAnonymously()")
let customToken = try admin.createCustomToken(uid: created.uid)
let custom = try await auth.signIn(withCustomToken: customToken)
check(custom.user.uid == created.uid, "\(custom.user.uid)")
ran("Auth.signIn(withCustomToken:)")

try await auth.sendPasswordReset(withEmail: email)
let resetCode = try await helpers.listOobCodes(project: project).oobCodes.last {
    $0.email == email && $0.requestType == .passwordReset
}?.oobCode
check(resetCode != nil, "no password-reset code was sent")
ran("Auth.sendPasswordReset(withEmail:)")
let resetEmail = try await auth.verifyPasswordResetCode(resetCode ?? "")
check(resetEmail == email, "\(resetEmail)")
ran("Auth.verifyPasswordResetCode(_:)")
try await auth.confirmPasswordReset(withCode: resetCode ?? "", newPassword: "a-new-password")
check(
    try await auth.signIn(withEmail: email, password: "a-new-password").user.uid == user.uid,
    "the new password does not sign in")
ran("Auth.confirmPasswordReset(withCode:newPassword:)")

// MARK: IdentityAdmin: ending sessions and accounts

try await admin.revokeRefreshTokens(uid: user.uid)
let revoked = try await admin.getUser(uid: user.uid)
check(revoked.tokensValidAfterTime != nil, "\(revoked)")
ran("BaseAuth.revokeRefreshTokens(uid:)")
try await admin.deleteUser(uid: created.uid)
let gone = try? await admin.getUser(uid: created.uid)
check(gone == nil, "the user is still there")
ran("BaseAuth.deleteUser(uid:)")
print("done")
