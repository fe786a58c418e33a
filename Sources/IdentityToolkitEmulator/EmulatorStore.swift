import Crypto
import Foundation
import IdentityToolkit
import OTP

/// All emulator state, in one actor so that concurrent requests are safe.
/// Every method is synchronous inside the actor (no suspension), so each
/// request's checks and changes happen atomically.
actor EmulatorStore {
    let defaultProject: String
    private let clock: EmulatorClock
    private var projects: [String: ProjectState] = [:]
    private var users: [Realm: [String: EmulatedUser]] = [:]
    private var emailIndex: [Realm: [String: String]] = [:]
    private var enrollmentSessions: [String: EnrollmentSession] = [:]
    private var pendingCredentials: [String: PendingCredential] = [:]
    private var refreshTokens: [String: RefreshTokenRecord] = [:]
    /// Each user's refresh tokens, oldest first (to bound how many are kept).
    private var refreshTokensByUser: [UserKey: [String]] = [:]
    private var oobCodes: [String: OutOfBandCode] = [:]
    private var oobOrder: [String] = []
    private var phoneVerifications: [String: PhoneVerification] = [:]
    private var phoneOrder: [String] = []

    let rules: SecondFactorRules
    private let attemptLimit: TOTPAttemptLimit

    init(defaultProject: String, clock: EmulatorClock, rules: SecondFactorRules = SecondFactorRules()) {
        self.defaultProject = defaultProject
        self.clock = clock
        self.rules = rules
        // The configuration was checked (1…1000) before the store is made.
        self.attemptLimit = (try? TOTPAttemptLimit(maximumFailures: rules.maximumCodeAttempts)) ?? .default
        projects[defaultProject] = ProjectState()
    }

    // MARK: Realms and configuration

    /// The realm of an API-key request: the default project, or one of its tenants.
    func realm(tenant: String?) throws -> Realm {
        guard let tenant, !tenant.isEmpty else { return Realm(project: defaultProject, tenant: nil) }
        guard projects[defaultProject]?.tenants[tenant] != nil else {
            throw APIServerError("TENANT_NOT_FOUND", detail: "no tenant '\(tenant)' in project \(defaultProject)")
        }
        return Realm(project: defaultProject, tenant: tenant)
    }

    private func mfaConfig(of realm: Realm) -> MultiFactorAuthConfig? {
        if let tenant = realm.tenant { return projects[realm.project]?.tenants[tenant]?.mfaConfig }
        return projects[realm.project]?.mfa
    }

    /// The TOTP window of a realm, or nil when TOTP is not enabled there.
    private func totpWindow(of realm: Realm) -> Int? {
        guard let providers = mfaConfig(of: realm)?.providerConfigs else { return nil }
        for provider in providers where provider.state == .enabled {
            if let totp = provider.totpProviderConfig {
                return Int(totp.adjacentIntervals ?? Int32(EmulatorRules.defaultAdjacentIntervals))
            }
        }
        return nil
    }

    // MARK: Users

    private func user(_ uid: String, in realm: Realm) throws -> EmulatedUser {
        guard let user = users[realm]?[uid] else { throw APIServerError("USER_NOT_FOUND") }
        if user.disabled { throw APIServerError("USER_DISABLED") }
        return user
    }

    private func store(_ user: EmulatedUser) {
        users[user.realm, default: [:]][user.localId] = user
        if let email = user.email { emailIndex[user.realm, default: [:]][InputRules.emailKey(email)] = user.localId }
    }

    private static func hash(_ password: String, salt: Data) -> Data {
        Data(SHA256.hash(data: salt + Data(password.utf8)))
    }

    /// 28 letters and digits, as production's generated uids: no `-` or `_`,
    /// so a uid never reads as an option on a command line (`--uid -x…`).
    private func newUID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<28).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    private func grant(for user: EmulatedUser, facts: SessionFacts) -> SessionGrant {
        let token = Data.randomToken(bytes: 32)
        refreshTokens[token] = RefreshTokenRecord(uid: user.localId, realm: user.realm, generation: user.tokenGeneration, session: facts)
        // Each user keeps at most the newest `maximumRefreshTokensPerUser`
        // sessions; an older refresh token then answers INVALID_REFRESH_TOKEN.
        let owner = UserKey(realm: user.realm, uid: user.localId)
        refreshTokensByUser[owner, default: []].append(token)
        for old in Self.trimOldest(&refreshTokensByUser[owner, default: []], keeping: EmulatorRules.maximumRefreshTokensPerUser) {
            refreshTokens[old] = nil
        }
        return SessionGrant(uid: user.localId, realm: user.realm, email: user.email, emailVerified: user.emailVerified,
                            displayName: user.displayName, facts: facts, refreshToken: token, customAttributes: user.customAttributes)
    }

    /// Trims an oldest-first list of keys to its newest `limit`; returns the
    /// keys it dropped, for the caller to forget.
    private static func trimOldest(_ order: inout [String], keeping limit: Int) -> ArraySlice<String> {
        guard order.count > limit else { return [] }
        let dropped = order.prefix(order.count - limit)
        order.removeFirst(dropped.count)
        return dropped
    }

    /// Refuses sign-ins to a tenant whose `disableAuth` is set, as Google's emulator does.
    private func checkAuthEnabled(_ realm: Realm) throws {
        if let tenant = realm.tenant, projects[realm.project]?.tenants[tenant]?.disableAuth == true {
            throw APIServerError("PROJECT_DISABLED", detail: "authentication is disabled for tenant '\(tenant)'")
        }
    }

    func signUp(realm: Realm, email: String?, password: String?, displayName: String?) throws -> SessionGrant {
        try checkAuthEnabled(realm)
        try InputRules.checkDisplayName(displayName)
        try InputRules.checkPasswordLength(password)
        if let tenant = realm.tenant, let settings = projects[realm.project]?.tenants[tenant] {
            // Unset flags allow; an explicit false refuses, with Google's emulator's codes.
            if email == nil && password == nil, settings.enableAnonymousUser == false {
                throw APIServerError("ADMIN_ONLY_OPERATION", detail: "anonymous sign-up is disabled for tenant '\(tenant)'")
            }
            if email != nil || password != nil, settings.allowPasswordSignup == false {
                throw APIServerError("OPERATION_NOT_ALLOWED", detail: "password sign-up is disabled for tenant '\(tenant)'")
            }
        }
        sweepExpiredState()
        let now = clock.now
        var user = EmulatedUser(localId: newUID(), realm: realm, salt: Data(Data.randomToken(bytes: 12).utf8), createdAt: now,
                                lastLoginAt: now, isAnonymous: email == nil && password == nil, validSince: now)
        user.displayName = displayName
        switch (email, password) {
        case (nil, nil):
            break
        case (nil, _):
            throw APIServerError("MISSING_EMAIL")
        case (_, nil):
            throw APIServerError("MISSING_PASSWORD")
        case let (email?, password?):
            guard InputRules.isValidEmail(email) else { throw APIServerError("INVALID_EMAIL") }
            guard password.count >= EmulatorRules.minimumPasswordLength else {
                throw APIServerError("WEAK_PASSWORD", detail: "Password should be at least \(EmulatorRules.minimumPasswordLength) characters")
            }
            guard emailIndex[realm]?[InputRules.emailKey(email)] == nil else { throw APIServerError("EMAIL_EXISTS") }
            user.email = email
            user.passwordHash = Self.hash(password, salt: user.salt)
            user.passwordUpdatedAt = now
        }
        store(user)
        return grant(for: user, facts: SessionFacts(provider: user.isAnonymous ? "anonymous" : "password", authTime: now))
    }

    enum PasswordSignIn: Sendable {
        case signedIn(SessionGrant)
        case secondFactorRequired(pendingCredential: String, uid: String, email: String?, displayName: String?, factors: [SecondFactor])
    }

    func signInWithPassword(realm: Realm, email: String, password: String) throws -> PasswordSignIn {
        try checkAuthEnabled(realm)
        try InputRules.checkPasswordLength(password)
        sweepExpiredState()
        guard let uid = emailIndex[realm]?[InputRules.emailKey(email)], var user = users[realm]?[uid], let hash = user.passwordHash,
            Self.hash(password, salt: user.salt) == hash
        else {
            throw APIServerError("INVALID_LOGIN_CREDENTIALS")
        }
        if user.disabled { throw APIServerError("USER_DISABLED") }
        let now = clock.now
        if !user.enrollments.isEmpty {
            let credential = Data.randomToken(bytes: 32)
            pendingCredentials[credential] = PendingCredential(uid: uid, realm: realm, provider: "password",
                                                              expiresAt: now.addingTimeInterval(Self.seconds(rules.challengeLifetime)))
            return .secondFactorRequired(pendingCredential: credential, uid: uid, email: user.email, displayName: user.displayName,
                                         factors: user.enrollments)
        }
        user.lastLoginAt = now
        store(user)
        return .signedIn(grant(for: user, facts: SessionFacts(provider: "password", authTime: now)))
    }

    /// A custom-token sign-in: the user `uid`, created on first use (with no
    /// email or password); a disabled one is refused.
    func signInWithCustomToken(realm: Realm, uid: String, developerClaims: String?) throws -> (grant: SessionGrant, isNewUser: Bool) {
        try checkAuthEnabled(realm)
        sweepExpiredState()
        let now = clock.now
        var isNewUser = false
        var user: EmulatedUser
        if let existing = users[realm]?[uid] {
            guard !existing.disabled else { throw APIServerError("USER_DISABLED") }
            user = existing
        } else {
            isNewUser = true
            forgetSessions(of: UserKey(realm: realm, uid: uid))
            user = EmulatedUser(localId: uid, realm: realm, salt: Data(Data.randomToken(bytes: 12).utf8), createdAt: now,
                                isAnonymous: false, validSince: now)
        }
        user.lastLoginAt = now
        store(user)
        return (grant(for: user, facts: SessionFacts(provider: "custom", authTime: now, developerClaims: developerClaims)), isNewUser)
    }

    /// The user an ID token names, checked against the request's tenant.
    func user(for claims: TokenIssuer.Claims, requestTenant: String?) throws -> EmulatedUser {
        if let requestTenant, !requestTenant.isEmpty, requestTenant != claims.firebase.tenant {
            throw APIServerError("TENANT_ID_MISMATCH")
        }
        guard claims.aud == defaultProject else { throw APIServerError("INVALID_ID_TOKEN", detail: "the token is for another project") }
        return try user(claims.sub, in: Realm(project: defaultProject, tenant: claims.firebase.tenant))
    }

    /// Changes email, password or display name; `byAdmin` also reaches a
    /// disabled account (a user's own token cannot).
    func updateProfile(_ uid: String, realm: Realm, email: String?, password: String?, displayName: String?, byAdmin: Bool = false) throws -> EmulatedUser {
        try InputRules.checkDisplayName(displayName)
        try InputRules.checkPasswordLength(password)
        guard let found = users[realm]?[uid] else { throw APIServerError("USER_NOT_FOUND") }
        var user = byAdmin ? found : try user(uid, in: realm)
        if let email {
            guard InputRules.isValidEmail(email) else { throw APIServerError("INVALID_EMAIL") }
            if let existing = emailIndex[realm]?[InputRules.emailKey(email)], existing != uid { throw APIServerError("EMAIL_EXISTS") }
            if let old = user.email { emailIndex[realm]?[InputRules.emailKey(old)] = nil }
            user.email = email
            user.emailVerified = false
        }
        if let password {
            guard password.count >= EmulatorRules.minimumPasswordLength else {
                throw APIServerError("WEAK_PASSWORD", detail: "Password should be at least \(EmulatorRules.minimumPasswordLength) characters")
            }
            user.passwordHash = Self.hash(password, salt: user.salt)
            user.passwordUpdatedAt = clock.now
        }
        if let displayName { user.displayName = displayName }
        store(user)
        return user
    }

    func lookup(_ uid: String, realm: Realm) throws -> EmulatedUser {
        try user(uid, in: realm)
    }

    // MARK: Out-of-band codes

    func createOobCode(requestType: OobRequestType, uid: String?, email: String?, realm: Realm) throws -> OutOfBandCode {
        let target: EmulatedUser
        if let uid {
            target = try user(uid, in: realm)
        } else if let email, let found = emailIndex[realm]?[InputRules.emailKey(email)], let user = users[realm]?[found] {
            target = user
        } else {
            throw APIServerError("EMAIL_NOT_FOUND")
        }
        guard let address = email ?? target.email else { throw APIServerError("MISSING_EMAIL") }
        let code = OutOfBandCode(code: Data.randomToken(bytes: 24), email: address, requestType: requestType, uid: target.localId, realm: realm)
        oobCodes[code.code] = code
        oobOrder.append(code.code)
        // A bounded history: the oldest unused codes go first.
        for old in Self.trimOldest(&oobOrder, keeping: EmulatorRules.maximumStoredOobCodes) { oobCodes[old] = nil }
        return code
    }

    /// What an action link's page does with its code: checks that the code
    /// is for `requestType`, then applies it once (a verification marks the
    /// address verified; a reset sets `newPassword` and ends the user's sessions).
    /// - Returns: the address the code was for.
    func applyActionLink(code: String, requestType: OobRequestType, newPassword: String?) throws -> String {
        guard let entry = oobCodes[code], entry.requestType == requestType else { throw APIServerError("INVALID_OOB_CODE") }
        var user = try user(entry.uid, in: entry.realm)
        switch requestType {
        case .passwordReset:
            guard let newPassword else { throw APIServerError("MISSING_NEW_PASSWORD") }
            try InputRules.checkPasswordLength(newPassword)
            guard newPassword.count >= EmulatorRules.minimumPasswordLength else {
                throw APIServerError("WEAK_PASSWORD", detail: "Password should be at least \(EmulatorRules.minimumPasswordLength) characters")
            }
            user.passwordHash = Self.hash(newPassword, salt: user.salt)
            user.passwordUpdatedAt = clock.now
            user.validSince = clock.now
            user.tokenGeneration += 1
            user.emailVerified = true
        case .verifyAndChangeEmail:
            try changeEmail(of: &user, to: entry.email)
            user.emailVerified = true
        case .verifyEmail:
            user.emailVerified = true
        default:
            break
        }
        oobCodes[code] = nil
        oobOrder.removeAll { $0 == code }
        store(user)
        return entry.email
    }

    func applyOobCode(_ code: String) throws -> EmulatedUser {
        guard let entry = oobCodes[code] else { throw APIServerError("INVALID_OOB_CODE") }
        var user = try user(entry.uid, in: entry.realm)
        if entry.requestType == .verifyAndChangeEmail { try changeEmail(of: &user, to: entry.email) }
        oobCodes[code] = nil
        oobOrder.removeAll { $0 == code }
        if entry.requestType == .verifyEmail || entry.requestType == .emailSignin || entry.requestType == .verifyAndChangeEmail {
            user.emailVerified = true
        }
        store(user)
        return user
    }

    /// Makes `email` the user's (a `VERIFY_AND_CHANGE_EMAIL` code applied):
    /// refused when another account took the address meanwhile.
    private func changeEmail(of user: inout EmulatedUser, to email: String) throws {
        if let owner = emailIndex[user.realm]?[InputRules.emailKey(email)], owner != user.localId { throw APIServerError("EMAIL_EXISTS") }
        if let old = user.email { emailIndex[user.realm]?[InputRules.emailKey(old)] = nil }
        user.email = email
    }

    func listOobCodes(project: String, tenant: String?) -> [OutOfBandCode] {
        oobOrder.compactMap { oobCodes[$0] }.filter { $0.realm == Realm(project: project, tenant: tenant) }
    }

    // MARK: Multi-factor

    private func checkCanEnroll(_ user: EmulatedUser, phoneNumber: String? = nil) throws {
        if user.isAnonymous { throw APIServerError("UNSUPPORTED_FIRST_FACTOR", detail: "anonymous users cannot enroll a second factor") }
        guard user.email != nil, user.emailVerified else {
            throw APIServerError("UNVERIFIED_EMAIL", detail: "Need to verify email first before enrolling second factors.")
        }
        if user.enrollments.count >= EmulatorRules.maximumFactors { throw APIServerError("SECOND_FACTOR_LIMIT_EXCEEDED") }
        if let phoneNumber {
            guard mfaConfig(of: user.realm)?.enabledProviders?.contains(.phoneSms) == true else {
                throw APIServerError("OPERATION_NOT_ALLOWED", detail: "SMS second factors are not enabled: add PHONE_SMS to mfa.enabledProviders")
            }
            if user.enrollments.contains(where: { $0.phoneNumber == phoneNumber }) {
                throw APIServerError("SECOND_FACTOR_EXISTS", detail: "this phone number is already enrolled")
            }
        } else {
            guard totpWindow(of: user.realm) != nil else {
                throw APIServerError("OPERATION_NOT_ALLOWED", detail: "TOTP is not enabled: set mfa.providerConfigs[].state ENABLED with a totpProviderConfig")
            }
            if user.enrollments.contains(where: \.isTOTP) {
                throw APIServerError("SECOND_FACTOR_EXISTS", detail: "a TOTP second factor is already enrolled")
            }
        }
    }

    func startTotpEnrollment(uid: String, realm: Realm, authTime: Date) throws -> (sessionInfo: String, secret: [UInt8], deadline: Date) {
        sweepExpiredState()
        try checkRecentSignIn(authTime)
        let user = try user(uid, in: realm)
        try checkCanEnroll(user)
        let secret = try OTPSecret.generate(byteCount: EmulatorRules.totpSecretBytes)
        let sessionInfo = Data.randomToken(bytes: 32)
        let deadline = clock.now.addingTimeInterval(EmulatorRules.enrollmentDeadline)
        enrollmentSessions[sessionInfo] = EnrollmentSession(uid: uid, realm: realm, enrollmentID: Data.randomToken(bytes: 12),
                                                            secret: secret, expiresAt: deadline)
        return (sessionInfo, secret, deadline)
    }

    /// The step `code` matches within the realm's window, refusing replays.
    /// Seconds of a rule's duration.
    private static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }

    /// Refuses an ID token whose sign-in is older than ``SecondFactorRules/recentSignIn``.
    private func checkRecentSignIn(_ authTime: Date) throws {
        guard clock.now.timeIntervalSince(authTime) <= Self.seconds(rules.recentSignIn) else {
            throw APIServerError("CREDENTIAL_TOO_OLD_LOGIN_AGAIN", detail: "sign in again before changing second factors")
        }
    }

    /// The step a TOTP code is accepted for, counting a wrong or replayed
    /// code in `failures`; past the attempt limit no code is checked.
    private func acceptedStep(code: String, secret: [UInt8], lastAccepted: UInt64?, realm: Realm, failures: inout Int) throws -> UInt64 {
        guard let window = totpWindow(of: realm) else { throw APIServerError("OPERATION_NOT_ALLOWED", detail: "TOTP is not enabled") }
        let totp = try TOTP(key: secret, digits: EmulatorRules.totpDigits, period: EmulatorRules.totpPeriod)
        let now = Int64(clock.now.timeIntervalSince1970.rounded(.down))
        // The OTP module's verifier decides (and limits attempts); the actor records the step atomically.
        let result: TOTPVerifier.Result
        do {
            result = try TOTPVerifier.check(code, totp: totp, window: window, at: max(0, now), lastAcceptedStep: lastAccepted,
                                            failures: &failures, limit: attemptLimit)
        } catch OTPError.Code.tooManyAttempts {
            throw APIServerError("TOO_MANY_ATTEMPTS_TRY_LATER", detail: "too many wrong codes: start again")
        }
        switch result {
        case .accepted(let step):
            return step
        case .replayed:
            throw APIServerError("INVALID_CODE", detail: "The verification code was already used.")
        case .invalid:
            throw APIServerError("INVALID_CODE", detail: "The verification code is not valid.")
        }
    }

    func finalizeTotpEnrollment(uid: String, realm: Realm, sessionInfo: String, code: String, displayName: String?, authTime: Date) throws -> SessionGrant {
        try InputRules.requireFactorDisplayName(displayName)
        try InputRules.checkDisplayName(displayName)
        guard let session = enrollmentSessions[sessionInfo], session.uid == uid, session.realm == realm else {
            throw APIServerError("INVALID_SESSION_INFO", detail: "unknown TOTP enrollment session")
        }
        guard clock.now < session.expiresAt else {
            enrollmentSessions[sessionInfo] = nil
            throw APIServerError("SESSION_EXPIRED", detail: "the TOTP enrollment session is past its finalizeEnrollmentTime")
        }
        try checkRecentSignIn(authTime)
        var user = try user(uid, in: realm)
        try checkCanEnroll(user)
        var failures = session.failedAttempts
        let step: UInt64
        do {
            step = try acceptedStep(code: code, secret: session.secret, lastAccepted: nil, realm: realm, failures: &failures)
        } catch let error as APIServerError {
            // A failure counts; at the limit the session is over.
            if error.shortCode == "TOO_MANY_ATTEMPTS_TRY_LATER" { enrollmentSessions[sessionInfo] = nil } else { enrollmentSessions[sessionInfo]?.failedAttempts = failures }
            throw error
        }
        enrollmentSessions[sessionInfo] = nil
        user.enrollments.append(SecondFactor(id: session.enrollmentID, displayName: displayName, enrolledAt: clock.now,
                                             kind: .totp(secret: session.secret, lastAcceptedStep: step)))
        store(user)
        return grant(for: user, facts: SessionFacts(provider: "password", secondFactor: SecondFactorID.totp.rawValue, secondFactorID: session.enrollmentID, authTime: authTime))
    }

    /// Withdraws a factor. Earlier sessions end; the caller gets a new
    /// session, except when the user had several factors and withdrew the
    /// most recently enrolled one: then every session ends, the caller's
    /// included (nil: the response carries no tokens, and the client's user
    /// is signed out, as the docs describe).
    func withdraw(uid: String, realm: Realm, enrollmentID: String, facts: SessionFacts) throws -> SessionGrant? {
        try checkRecentSignIn(facts.authTime)
        var user = try user(uid, in: realm)
        guard let index = user.enrollments.firstIndex(where: { $0.id == enrollmentID }) else {
            throw APIServerError("MFA_ENROLLMENT_NOT_FOUND")
        }
        let endsEverySession = user.enrollments.count >= 2 && index == user.enrollments.count - 1
        user.enrollments.remove(at: index)
        // Earlier sessions end: their refresh tokens now get TOKEN_EXPIRED.
        user.tokenGeneration += 1
        user.validSince = clock.now
        store(user)
        if endsEverySession { return nil }
        var facts = facts
        // The caller's new session starts now: with its old sign-in time its
        // tokens would fail every `checkRevoked` (auth_time before validSince),
        // and a session cookie made from them at once. The withdrawal needed
        // a recent sign-in, so the caller has just proved who they are.
        facts.authTime = max(facts.authTime, user.validSince)
        if facts.secondFactorID == enrollmentID {
            facts.secondFactor = nil
            facts.secondFactorID = nil
        }
        return grant(for: user, facts: facts)
    }

    /// A live pending credential; an expired one is forgotten and refused
    /// (`TOTP_CHALLENGE_TIMEOUT` on the TOTP path, as production answers).
    func checkPendingCredential(_ credential: String, totp: Bool = false) throws -> PendingCredential {
        guard let pending = pendingCredentials[credential] else {
            throw APIServerError("INVALID_MFA_PENDING_CREDENTIAL", detail: "unknown or already used")
        }
        guard clock.now < pending.expiresAt else {
            pendingCredentials[credential] = nil
            if totp { throw APIServerError("TOTP_CHALLENGE_TIMEOUT", detail: "TOTP challenge timeout, provide first factor again.") }
            throw APIServerError("INVALID_MFA_PENDING_CREDENTIAL", detail: "expired")
        }
        return pending
    }

    func finalizeTotpSignIn(pendingCredential: String, enrollmentID: String, code: String, requestTenant: String?) throws -> SessionGrant {
        let pending = try checkPendingCredential(pendingCredential, totp: true)
        if let requestTenant, !requestTenant.isEmpty, requestTenant != pending.realm.tenant { throw APIServerError("TENANT_ID_MISMATCH") }
        var user = try user(pending.uid, in: pending.realm)
        guard let index = user.enrollments.firstIndex(where: { $0.id == enrollmentID }) else {
            throw APIServerError("MFA_ENROLLMENT_NOT_FOUND")
        }
        guard case .totp(let secret, let lastAccepted) = user.enrollments[index].kind else {
            throw APIServerError.invalidArgument("the factor is a phone factor: send phoneVerificationInfo")
        }
        var failures = pending.failedAttempts
        let step: UInt64
        do {
            step = try acceptedStep(code: code, secret: secret, lastAccepted: lastAccepted, realm: pending.realm, failures: &failures)
        } catch let error as APIServerError {
            // A failure counts; at the limit the challenge is over (the password is needed again).
            if error.shortCode == "TOO_MANY_ATTEMPTS_TRY_LATER" { pendingCredentials[pendingCredential] = nil } else { pendingCredentials[pendingCredential]?.failedAttempts = failures }
            throw error
        }
        user.enrollments[index].kind = .totp(secret: secret, lastAcceptedStep: step)
        pendingCredentials[pendingCredential] = nil
        let now = clock.now
        user.lastLoginAt = now
        store(user)
        return grant(for: user, facts: SessionFacts(provider: pending.provider, secondFactor: SecondFactorID.totp.rawValue, secondFactorID: enrollmentID, authTime: now))
    }

    // MARK: Phone factors (SMS codes are listed, not sent)

    private static func isPhoneNumber(_ number: String) -> Bool {
        number.hasPrefix("+") && (8...16).contains(number.count) && number.dropFirst().allSatisfy(\.isNumber)
    }

    private func sendCode(to number: String, realm: Realm, purpose: PhoneVerification.Purpose) -> String {
        sweepExpiredState()
        var generator = SystemRandomNumberGenerator()
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000, using: &generator))
        let sessionInfo = Data.randomToken(bytes: 32)
        phoneVerifications[sessionInfo] = PhoneVerification(sessionInfo: sessionInfo, phoneNumber: number, code: code, realm: realm,
                                                            purpose: purpose, expiresAt: clock.now.addingTimeInterval(EmulatorRules.enrollmentDeadline))
        phoneOrder.append(sessionInfo)
        return sessionInfo
    }

    func startPhoneEnrollment(uid: String, realm: Realm, phoneNumber: String, authTime: Date) throws -> String {
        try checkRecentSignIn(authTime)
        guard Self.isPhoneNumber(phoneNumber) else { throw APIServerError("INVALID_PHONE_NUMBER", detail: "expected E.164, such as +15555550100") }
        try checkCanEnroll(try user(uid, in: realm), phoneNumber: phoneNumber)
        return sendCode(to: phoneNumber, realm: realm, purpose: .enroll(uid: uid))
    }

    private func takeVerification(_ sessionInfo: String, code: String) throws -> PhoneVerification {
        guard let verification = phoneVerifications[sessionInfo] else { throw APIServerError("INVALID_SESSION_INFO") }
        guard clock.now < verification.expiresAt else {
            phoneVerifications[sessionInfo] = nil
            throw APIServerError("SESSION_EXPIRED")
        }
        guard verification.code == code else { throw APIServerError("INVALID_CODE") }
        phoneVerifications[sessionInfo] = nil
        phoneOrder.removeAll { $0 == sessionInfo }
        return verification
    }

    func finalizePhoneEnrollment(uid: String, realm: Realm, sessionInfo: String, code: String, displayName: String?, facts: SessionFacts) throws -> SessionGrant {
        try checkRecentSignIn(facts.authTime)
        try InputRules.checkDisplayName(displayName)
        guard let pending = phoneVerifications[sessionInfo], case .enroll(let owner) = pending.purpose, owner == uid, pending.realm == realm else {
            throw APIServerError("INVALID_SESSION_INFO")
        }
        var user = try user(uid, in: realm)
        try checkCanEnroll(user, phoneNumber: pending.phoneNumber)
        let verification = try takeVerification(sessionInfo, code: code)
        let id = Data.randomToken(bytes: 12)
        user.enrollments.append(SecondFactor(id: id, displayName: displayName, enrolledAt: clock.now, kind: .phone(number: verification.phoneNumber)))
        store(user)
        return grant(for: user, facts: SessionFacts(provider: facts.provider, secondFactor: SecondFactorID.phone.rawValue, secondFactorID: id, authTime: facts.authTime))
    }

    func startPhoneSignIn(pendingCredential: String, enrollmentID: String) throws -> String {
        let pending = try checkPendingCredential(pendingCredential)
        let user = try user(pending.uid, in: pending.realm)
        guard let factor = user.enrollments.first(where: { $0.id == enrollmentID }) else { throw APIServerError("MFA_ENROLLMENT_NOT_FOUND") }
        guard let number = factor.phoneNumber else {
            throw APIServerError.invalidArgument("TOTP factors have no start step: call mfaSignIn:finalize with totpVerificationInfo")
        }
        return sendCode(to: number, realm: pending.realm, purpose: .signIn(pendingCredential: pendingCredential, enrollmentID: enrollmentID))
    }

    func finalizePhoneSignIn(pendingCredential: String, sessionInfo: String, code: String) throws -> SessionGrant {
        let pending = try checkPendingCredential(pendingCredential)
        guard let verification = phoneVerifications[sessionInfo], case .signIn(let credential, let enrollmentID) = verification.purpose,
            credential == pendingCredential
        else {
            throw APIServerError("INVALID_SESSION_INFO")
        }
        _ = try takeVerification(sessionInfo, code: code)
        pendingCredentials[pendingCredential] = nil
        var user = try user(pending.uid, in: pending.realm)
        let now = clock.now
        user.lastLoginAt = now
        store(user)
        return grant(for: user, facts: SessionFacts(provider: pending.provider, secondFactor: SecondFactorID.phone.rawValue, secondFactorID: enrollmentID, authTime: now))
    }

    func listVerificationCodes(project: String, tenant: String?) -> [PhoneVerification] {
        phoneOrder.compactMap { phoneVerifications[$0] }.filter { $0.realm == Realm(project: project, tenant: tenant) }
    }

    // MARK: Tokens

    func refresh(_ token: String) throws -> SessionGrant {
        guard let record = refreshTokens[token] else { throw APIServerError("INVALID_REFRESH_TOKEN") }
        let user = try user(record.uid, in: record.realm)
        guard user.tokenGeneration == record.generation else {
            throw APIServerError("TOKEN_EXPIRED", detail: "the session was revoked")
        }
        return SessionGrant(uid: user.localId, realm: user.realm, email: user.email, emailVerified: user.emailVerified,
                            displayName: user.displayName, facts: record.session, refreshToken: token, customAttributes: user.customAttributes)
    }

    // MARK: Admin

    /// The realm of an admin call: a project, or one of its tenants (which must exist).
    func adminRealm(project: String, tenant: String?) throws -> Realm {
        guard let tenant, !tenant.isEmpty else { return Realm(project: project, tenant: nil) }
        guard projects[project]?.tenants[tenant] != nil else {
            throw APIServerError("TENANT_NOT_FOUND", detail: "no tenant '\(tenant)' in project \(project)")
        }
        return Realm(project: project, tenant: tenant)
    }

    /// Accounts by uid and by email (an admin lookup): unknown ones are
    /// simply absent, as production answers.
    func adminLookup(realm: Realm, localIds: [String], emails: [String]) -> [EmulatedUser] {
        var found: [EmulatedUser] = []
        var seen: Set<String> = []
        let uids = localIds + emails.compactMap { emailIndex[realm]?[InputRules.emailKey($0)] }
        for uid in uids {
            if let user = users[realm]?[uid], seen.insert(uid).inserted { found.append(user) }
        }
        return found
    }

    /// An admin update by uid: disable or enable the account, and revoke
    /// its sessions by moving `validSince` (its refresh tokens stop working).
    /// `keepFactors`, when given, is the subset of enrollment ids that stays
    /// enrolled (the recovery of a lost authenticator); a factor the user does
    /// not have cannot be added this way.
    func adminUpdate(realm: Realm, localId: String, disable: Bool?, validSince: Int64?, emailVerified: Bool? = nil,
                     keepFactors: [(id: String?, isTOTP: Bool)]? = nil, customAttributes: String? = nil) throws -> EmulatedUser {
        guard var user = users[realm]?[localId] else { throw APIServerError("USER_NOT_FOUND") }
        if let customAttributes {
            try InputRules.checkCustomAttributes(customAttributes)
            // `{}` (or only whitespace around it) clears the claims.
            let isEmpty = (try? JSONDecoder().decode([String: JSONValue].self, from: Data(customAttributes.utf8)))?.isEmpty ?? false
            user.customAttributes = isEmpty ? nil : customAttributes
        }
        if let keepFactors {
            var kept: [SecondFactor] = []
            for factor in keepFactors {
                guard let id = factor.id, let enrolled = user.enrollments.first(where: { $0.id == id }) else {
                    if factor.isTOTP { throw APIServerError("UNSUPPORTED_SECOND_FACTOR", detail: "TOTP factors cannot be added by an admin update") }
                    throw APIServerError.invalidArgument("mfa.enrollments may only keep factors the user has (adding one is not emulated)")
                }
                if !kept.contains(where: { $0.id == id }) { kept.append(enrolled) }
            }
            user.enrollments = kept
        }
        if let emailVerified { user.emailVerified = emailVerified }
        if let disable { user.disabled = disable }
        if let validSince {
            let date = Date(timeIntervalSince1970: TimeInterval(validSince))
            guard EmulatorClock.validRange.contains(date) else { throw APIServerError.invalidArgument("validSince is out of range") }
            user.validSince = date
            user.tokenGeneration += 1
        }
        store(user)
        return user
    }

    /// An account an admin creates: any uid of 1 to 128 characters not in
    /// use (a random one when nil), optionally an email and password; the
    /// tenant's sign-up switches do not apply to admins.
    func adminCreate(realm: Realm, localId: String?, email: String?, password: String?, displayName: String?,
                     emailVerified: Bool?, disabled: Bool?) throws -> EmulatedUser {
        try InputRules.checkDisplayName(displayName)
        try InputRules.checkPasswordLength(password)
        let uid = localId ?? newUID()
        guard (1...IdentityPlatformLimits.maximumUIDLength).contains(uid.count) else {
            throw APIServerError.invalidArgument("localId must be 1 to \(IdentityPlatformLimits.maximumUIDLength) characters")
        }
        guard users[realm]?[uid] == nil else { throw APIServerError("DUPLICATE_LOCAL_ID") }
        forgetSessions(of: UserKey(realm: realm, uid: uid))
        let now = clock.now
        var user = EmulatedUser(localId: uid, realm: realm, salt: Data(Data.randomToken(bytes: 12).utf8), createdAt: now,
                                isAnonymous: email == nil && password == nil, validSince: now)
        user.displayName = displayName
        if let email {
            guard InputRules.isValidEmail(email) else { throw APIServerError("INVALID_EMAIL") }
            guard emailIndex[realm]?[InputRules.emailKey(email)] == nil else { throw APIServerError("EMAIL_EXISTS") }
            user.email = email
        }
        if let password {
            guard password.count >= EmulatorRules.minimumPasswordLength else {
                throw APIServerError("WEAK_PASSWORD", detail: "Password should be at least \(EmulatorRules.minimumPasswordLength) characters")
            }
            user.passwordHash = Self.hash(password, salt: user.salt)
            user.passwordUpdatedAt = now
        }
        user.emailVerified = emailVerified ?? false
        user.disabled = disabled ?? false
        store(user)
        return user
    }

    /// Forgets every session of a uid: a new account that takes a deleted
    /// one's uid must not inherit its refresh tokens.
    private func forgetSessions(of owner: UserKey) {
        for token in refreshTokensByUser[owner] ?? [] { refreshTokens[token] = nil }
        refreshTokensByUser[owner] = nil
    }

    /// Deletes an account and everything that could still act for it.
    func adminDelete(realm: Realm, localId: String) throws {
        guard let user = users[realm]?[localId] else { throw APIServerError("USER_NOT_FOUND") }
        users[realm]?[localId] = nil
        if let email = user.email { emailIndex[realm]?[InputRules.emailKey(email)] = nil }
        // The user's refresh tokens stay until the next sweep, so that a
        // refresh meanwhile answers USER_NOT_FOUND, as production documents
        // for a deleted user (not INVALID_REFRESH_TOKEN).
        enrollmentSessions = enrollmentSessions.filter { !($0.value.realm == realm && $0.value.uid == localId) }
        pendingCredentials = pendingCredentials.filter { !($0.value.realm == realm && $0.value.uid == localId) }
    }

    /// One page of a realm's accounts in uid order, after the uid `after`;
    /// the page's last uid when more follow.
    func adminList(realm: Realm, pageSize: Int, after: String?) -> (users: [EmulatedUser], lastUID: String?) {
        let all = (users[realm] ?? [:]).values.sorted { $0.localId < $1.localId }
        let rest = after.map { cursor in all.drop(while: { $0.localId <= cursor }) } ?? all[...]
        let page = Array(rest.prefix(pageSize))
        return (page, rest.count > page.count ? page.last?.localId : nil)
    }

    func projectConfig(_ project: String) -> ProjectState {
        if projects[project] == nil { projects[project] = ProjectState() }
        return projects[project] ?? ProjectState()
    }

    func setProjectMFA(_ project: String, _ mfa: MultiFactorAuthConfig?) {
        projects[project, default: ProjectState()].mfa = mfa
    }

    func createTenant(project: String, _ tenant: Tenant) -> Tenant {
        let base = (tenant.displayName ?? "tenant").lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" }.prefix(20)
        var id: String
        repeat {
            id = "\(base.isEmpty ? "tenant" : String(base))-\(Data.randomToken(bytes: 4).lowercased().filter { $0.isLetter || $0.isNumber }.prefix(5))"
        } while projects[project]?.tenants[id] != nil
        var stored = tenant
        stored.name = "projects/\(project)/tenants/\(id)"
        projects[project, default: ProjectState()].tenants[id] = stored
        projects[project]?.tenantOrder.append(id)
        return stored
    }

    func tenant(project: String, id: String) throws -> Tenant {
        guard let tenant = projects[project]?.tenants[id] else {
            throw APIServerError(status: 404, "TENANT_NOT_FOUND", detail: "no tenant '\(id)' in project \(project)", reason: "notFound")
        }
        return tenant
    }

    /// One page of a project's tenants in creation order, after the tenant
    /// `after`; the page's last id when more follow.
    func listTenants(project: String, pageSize: Int, after: String?) -> (tenants: [Tenant], lastID: String?) {
        let order = projects[project]?.tenantOrder ?? []
        let start = after.flatMap { order.firstIndex(of: $0).map { $0 + 1 } } ?? 0
        let ids = order[min(start, order.count)...].prefix(pageSize)
        let tenants = ids.compactMap { projects[project]?.tenants[$0] }
        return (tenants, start + ids.count < order.count ? ids.last : nil)
    }

    /// Deletes a tenant with its accounts and codes.
    func deleteTenant(project: String, id: String) throws {
        _ = try tenant(project: project, id: id)
        deleteAccounts(project: project, tenant: id)
        projects[project]?.tenants[id] = nil
        projects[project]?.tenantOrder.removeAll { $0 == id }
    }

    func replaceTenant(project: String, id: String, _ tenant: Tenant) throws -> Tenant {
        _ = try self.tenant(project: project, id: id)
        projects[project]?.tenants[id] = tenant
        return tenant
    }

    // MARK: Expiry

    /// When expired state was last removed.
    private var lastSweep = Date.distantPast

    /// Removes expired enrollment sessions, pending credentials and SMS
    /// codes, and refresh tokens that can never work again (revoked or of a
    /// deleted user), so that a long-running emulator does not grow without
    /// bound. Runs at most once per ``EmulatorRules/sweepInterval`` of the
    /// emulator's clock; each request that creates state calls it.
    func sweepExpiredState() {
        let now = clock.now
        guard abs(now.timeIntervalSince(lastSweep)) >= EmulatorRules.sweepInterval else { return }
        lastSweep = now
        enrollmentSessions = enrollmentSessions.filter { now < $0.value.expiresAt }
        pendingCredentials = pendingCredentials.filter { now < $0.value.expiresAt }
        phoneVerifications = phoneVerifications.filter { now < $0.value.expiresAt }
        phoneOrder = phoneOrder.filter { phoneVerifications[$0] != nil }
        refreshTokens = refreshTokens.filter { _, record in
            users[record.realm]?[record.uid]?.tokenGeneration == record.generation
        }
        refreshTokensByUser = refreshTokensByUser.compactMapValues { tokens in
            let live = tokens.filter { refreshTokens[$0] != nil }
            return live.isEmpty ? nil : live
        }
    }

    /// How many of each kind of short-lived state the store holds (for tests and the soak).
    var stateCounts: [String: Int] {
        ["enrollmentSessions": enrollmentSessions.count, "pendingCredentials": pendingCredentials.count,
         "phoneVerifications": phoneVerifications.count, "refreshTokens": refreshTokens.count, "oobCodes": oobCodes.count]
    }

    // MARK: Emulator helpers

    func deleteAccounts(project: String, tenant: String?) {
        let realm = Realm(project: project, tenant: tenant)
        users[realm] = nil
        emailIndex[realm] = nil
        enrollmentSessions = enrollmentSessions.filter { $0.value.realm != realm }
        pendingCredentials = pendingCredentials.filter { $0.value.realm != realm }
        refreshTokens = refreshTokens.filter { $0.value.realm != realm }
        refreshTokensByUser = refreshTokensByUser.filter { $0.key.realm != realm }
        oobCodes = oobCodes.filter { $0.value.realm != realm }
        oobOrder = oobOrder.filter { oobCodes[$0] != nil }
        phoneVerifications = phoneVerifications.filter { $0.value.realm != realm }
        phoneOrder = phoneOrder.filter { phoneVerifications[$0] != nil }
    }
}
