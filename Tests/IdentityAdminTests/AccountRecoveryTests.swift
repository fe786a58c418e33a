import AdminTestSupport
import Foundation
import IdentityOTP
import IdentityToolkit
import IdentityToolkitEmulator
import IdentityToolkitTestSupport
import Logging
import Testing

@testable import IdentityAdmin

/// The self-service path against the emulator: a user with TOTP and a
/// session cookie loses the phone, proves themselves with a recovery code
/// after the password step, and ends with the factor withdrawn, every
/// earlier session refused, a custom-token sign-in without a second factor,
/// and a new authenticator.
@Suite struct AccountRecoveryTests {
    @Test func aRecoveryCodeWithdrawsTheFactorEndsTheSessionsAndSignsTheUserIn() async throws {
        try await EmulatorSetup.with(project: "demo-self-recovery") { setup in
            let (admin, accounts) = (setup.admin, setup.accounts)
            let clock = setup.clock
            clock.set(Date().addingTimeInterval(-120))

            let email = "self-recovery@example.com"
            let password = "correct horse"
            let created = try await accounts.signUp(
                SignUpRequest(email: email, password: password, returnSecureToken: true))
            let uid = created.localId
            _ = try await admin.updateUser(uid, UpdateUserRequest(emailVerified: true))
            let lostPhone = try await setup.enrollTOTP(idToken: try #require(created.idToken), displayName: "Old phone")
            let signedIn = try await setup.signInWithTOTP(email: email, password: password, totp: lostPhone)
            let oldCookie = try await admin.createSessionCookie(
                try #require(signedIn.idToken), expiresIn: .seconds(3600))
            _ = try await admin.verifySessionCookie(oldCookie, checkRevoked: true)

            let records = LogRecords()
            let events = EventRecords()
            let recovery = AccountRecovery(
                admin: admin,
                redeemer: RecoveryCodeRedeemer(
                    store: ExpiringStateRecoveryCodeStore(), attemptStore: ExpiringStateTOTPVerificationStore()),
                logger: Logger(label: "audit") { _ in CapturingLogHandler(records: records) },
                notify: { event in events.append(event) })
            await #expect(throws: AdminError.self) {
                _ = try await recovery.recover(
                    FirstFactorProof(uid: uid, checkedAt: clock.now), code: "0000-0000-0000", now: clock.now)
            }
            let codes = try await recovery.issueCodes(for: uid)

            // The password step asks for the second factor; the user has no phone.
            let pending = try await accounts.signInWithPassword(
                SignInWithPasswordRequest(email: email, password: password))
            #expect(pending.mfaPendingCredential != nil)
            let proof = FirstFactorProof(uid: uid, checkedAt: clock.now)
            do {
                _ = try await recovery.recover(proof, code: "0000-0000-0000", now: clock.now)
                Issue.record("a wrong code recovered the account")
            } catch let error as AdminError {
                #expect(error.code == .invalidRecoveryCode)
            }
            clock.advance(by: 2)
            let recovered = try await recovery.recover(proof, code: codes.codes[0].lowercased(), now: clock.now)
            #expect(recovered.uid == uid)
            #expect(recovered.withdrawnFactors.map(\.displayName) == ["Old phone"])
            #expect(recovered.remainingCodes == 9)
            #expect(!"\(recovered)".contains(recovered.customToken))
            #expect(try await admin.getUser(uid: uid).multiFactor.enrolledFactors.isEmpty)
            // Every earlier session ends.
            await #expect(throws: TokenVerificationError.revoked) {
                _ = try await admin.verifySessionCookie(oldCookie, checkRevoked: true)
            }

            // The custom token signs the user in with no second factor asked.
            clock.advance(by: 30)
            let session = try await accounts.signInWithCustomToken(
                SignInWithCustomTokenRequest(token: recovered.customToken, returnSecureToken: true))
            let newToken = try #require(session.idToken)
            let decoded = try await admin.verifyIDToken(newToken, checkRevoked: true)
            #expect(decoded.uid == uid)
            _ = try await setup.enrollTOTP(idToken: newToken, displayName: "New phone")
            #expect(try await admin.getUser(uid: uid).multiFactor.enrolledFactors.map(\.displayName) == ["New phone"])

            // The recovery revoked the sessions, so its own password step is spent too.
            do {
                _ = try await recovery.recover(proof, code: codes.codes[1], now: clock.now)
                Issue.record("a password step from before the recovery was used again")
            } catch let error as AdminError {
                #expect(error.code == .firstFactorTooOld)
            }
            // With a new password step: the used code is refused; the next one works.
            clock.advance(by: 2)
            let again = FirstFactorProof(uid: uid, checkedAt: clock.now)
            do {
                _ = try await recovery.recover(again, code: codes.codes[0], now: clock.now)
                Issue.record("a used code worked again")
            } catch let error as AdminError {
                #expect(error.code == .invalidRecoveryCode)
            }
            #expect(try await recovery.recover(again, code: codes.codes[1], now: clock.now).remainingCodes == 8)

            // The audit: one line per redemption, the hook called, never a code or token.
            #expect(events.all.map(\.withdrawnFactorIDs.count) == [1, 1])
            #expect(events.all.first?.email == email)
            #expect(events.all.map(\.remainingCodes) == [9, 8])
            let audit = records.lines.joined(separator: "\n")
            #expect(records.lines.filter { $0.contains("account recovered") }.count == 2)
            for code in codes.codes {
                #expect(!audit.contains(code))
                #expect(!audit.uppercased().contains(code.replacingOccurrences(of: "-", with: "")))
            }
            #expect(!audit.contains(recovered.customToken))
        }
    }

    /// Every step of a recovery and of an administrator's changes is a
    /// security event with its initiator; none carries a code, a token or
    /// the email address.
    @Test func recoveryAndAdminChangesAreSecurityEvents() async throws {
        try await EmulatorSetup.with(project: "demo-recovery-events") { setup in
            let (admin, accounts) = (setup.admin, setup.accounts)
            let clock = setup.clock
            clock.set(Date().addingTimeInterval(-120))
            let email = "events@example.com"
            let password = "correct horse"
            let created = try await accounts.signUp(
                SignUpRequest(email: email, password: password, returnSecureToken: true))
            let uid = created.localId
            _ = try await admin.updateUser(uid, UpdateUserRequest(emailVerified: true))
            _ = try await setup.enrollTOTP(idToken: try #require(created.idToken), displayName: "First phone")
            let log = CollectedSecurityEvents()
            let recovery = AccountRecovery(
                admin: admin,
                redeemer: RecoveryCodeRedeemer(
                    store: ExpiringStateRecoveryCodeStore(), attemptStore: ExpiringStateTOTPVerificationStore()))
            var codes: [String] = []
            try await SecurityEventSystem.withSink(log) {
                // An administrator withdraws the factor and ends the sessions.
                let before = try await admin.getUser(uid: uid).multiFactor.enrolledFactors
                _ = try await admin.updateUser(uid, UpdateUserRequest(enrolledFactors: []))
                try await admin.revokeRefreshTokens(uid: uid, now: clock.now)
                // The user enrolls again, gets codes, mistypes one, then recovers.
                clock.advance(by: 2)
                let again = try await accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: email, password: password, returnSecureToken: true))
                _ = try await setup.enrollTOTP(idToken: try #require(again.idToken), displayName: "Second phone")
                codes = try await recovery.issueCodes(for: uid).codes
                let proof = FirstFactorProof(uid: uid, checkedAt: clock.now)
                _ = try? await recovery.recover(proof, code: "0000-0000-0000", now: clock.now)
                _ = try await recovery.recover(proof, code: codes[0], now: clock.now)
                let events = await log.events
                #expect(events.allSatisfy { $0.user == UserKey(uid: uid) })
                #expect(
                    events.map(\.kind) == [
                        .factorWithdrawn, .sessionsRevoked, .recoveryCodesIssued, .codeRefused, .recoveryCodeRedeemed,
                        .factorWithdrawn, .sessionsRevoked,
                    ])
                #expect(events.map(\.initiatedBy) == [.admin, .admin, nil, nil, .recovery, .recovery, .recovery])
                #expect(events.first?.factorID == before.first?.uid)
                #expect(events.first?.factorKind == "totp")
                #expect(events.first { $0.kind == .recoveryCodesIssued }?.remainingCodes == 10)
                #expect(events.first { $0.kind == .recoveryCodeRedeemed }?.remainingCodes == 9)
                #expect(
                    events.filter { $0.kind == .codeRefused || $0.kind == .recoveryCodeRedeemed }.allSatisfy {
                        $0.factorKind == "recovery_code"
                    })
                let text = "\(events)"
                #expect(!text.contains(email) && !text.contains(password))
                for code in codes { #expect(!text.contains(code)) }
            }
        }
    }

    @Test func wrongCodesStopAtTheLimitAndFailuresNameTheStep() async throws {
        try await EmulatorSetup.with(project: "demo-recovery-limit") { setup in
            let recovery = AccountRecovery(
                admin: setup.admin,
                redeemer: RecoveryCodeRedeemer(
                    store: ExpiringStateRecoveryCodeStore(), attemptStore: ExpiringStateTOTPVerificationStore(),
                    attemptLimit: try TOTPAttemptLimit(maximumFailures: 2)),
                logger: Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() })
            let uid = try await setup.accounts.signUp(
                SignUpRequest(email: "limit@example.com", password: "correct horse", returnSecureToken: true)
            ).localId
            let codes = try await recovery.issueCodes(for: uid)
            let proof = FirstFactorProof(uid: uid, checkedAt: setup.clock.now)
            for _ in 0..<2 {
                do { _ = try await recovery.recover(proof, code: "0000-0000-0000", now: setup.clock.now) } catch let
                    error as AdminError
                {
                    #expect(error.code == .invalidRecoveryCode)
                }
            }
            do {
                _ = try await recovery.recover(proof, code: codes.codes[0], now: setup.clock.now)
                Issue.record("a code was checked past the limit")
            } catch let error as AdminError {
                #expect(error.code == .tooManyRecoveryAttempts)
            }
            // A uid Identity Platform does not know: refused before any code is counted or spent.
            let other = try await recovery.issueCodes(for: "ghost")
            do {
                _ = try await recovery.recover(
                    FirstFactorProof(uid: "ghost", checkedAt: setup.clock.now), code: other.codes[0],
                    now: setup.clock.now)
                Issue.record("recovered a user that does not exist")
            } catch let error as AdminError {
                #expect(error.code == .userLookupFailed)
                #expect("\(error)".hasPrefix("userLookupFailed (AdminError)"))
                #expect(!"\(error)".contains(other.codes[0]))
            }
            #expect(
                try await recovery.redeemer.redeem(other.codes[0], for: recovery.storeKey("ghost"))
                    == .redeemed(remaining: 9), "the code was not spent")
        }
    }

    /// Recovery once trusted a password step of any age: anyone who once
    /// knew the password and holds a code could withdraw the factor later.
    /// Now a step older than five minutes, or older than the account's last
    /// revocation (a password change), is refused, and nothing is spent.
    @Test func aStaleOrRevokedPasswordStepCannotRecover() async throws {
        try await EmulatorSetup.with(project: "demo-recovery-fresh") { setup in
            let clock = setup.clock
            clock.set(Date().addingTimeInterval(-3600))
            let recovery = AccountRecovery(
                admin: setup.admin,
                redeemer: RecoveryCodeRedeemer(
                    store: ExpiringStateRecoveryCodeStore(), attemptStore: ExpiringStateTOTPVerificationStore()),
                logger: Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() })
            let uid = try await setup.accounts.signUp(
                SignUpRequest(email: "fresh@example.com", password: "correct horse", returnSecureToken: true)
            ).localId
            let codes = try await recovery.issueCodes(for: uid)
            let proof = FirstFactorProof(uid: uid, checkedAt: clock.now)
            for late: TimeInterval in [301, 3600, -120] {
                do {
                    _ = try await recovery.recover(proof, code: codes.codes[0], now: clock.now.addingTimeInterval(late))
                    Issue.record("a password step \(late) s old recovered the account")
                } catch let error as AdminError {
                    #expect(error.code == .firstFactorTooOld)
                }
            }
            // The password changes (sessions end) after the step: the step is spent.
            clock.advance(by: 2)
            _ = try await setup.admin.updateUser(uid, UpdateUserRequest(password: "another horse"))
            clock.advance(by: 2)
            do {
                _ = try await recovery.recover(proof, code: codes.codes[0], now: clock.now)
                Issue.record("a password step from before a password change recovered the account")
            } catch let error as AdminError {
                #expect(error.code == .firstFactorTooOld)
            }
            // Nothing was counted or spent: a fresh step recovers with the same code.
            #expect(
                try await recovery.recover(
                    FirstFactorProof(uid: uid, checkedAt: clock.now), code: codes.codes[0], now: clock.now
                ).remainingCodes == 9)
        }
    }

    /// Codes and attempts are keyed by (tenant, uid): a tenant's user and
    /// another tenant's (or the project's) user with the same uid never
    /// share codes.
    @Test func tenantsWithEqualUIDsShareNoCodes() async throws {
        let admin = IdentityAdmin.emulator(projectID: "demo-tenant-keys", hostAndPort: "127.0.0.1:1")
        let redeemer = RecoveryCodeRedeemer(
            store: ExpiringStateRecoveryCodeStore(), attemptStore: ExpiringStateTOTPVerificationStore())
        let quiet = Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() }
        let project = AccountRecovery(admin: admin, redeemer: redeemer, logger: quiet)
        let tenantA = AccountRecovery(
            admin: admin.tenantManager().authForTenant("tenant-a"), redeemer: redeemer, logger: quiet)
        let tenantB = AccountRecovery(
            admin: admin.tenantManager().authForTenant("tenant-b"), redeemer: redeemer, logger: quiet)
        #expect(Set([project.storeKey("same"), tenantA.storeKey("same"), tenantB.storeKey("same")]).count == 3)
        #expect(
            tenantA.storeKey("b/same") != tenantB.storeKey("same"), "a tenant id holds no '/', so the first one ends it"
        )
        let codes = try await tenantA.issueCodes(for: "same")
        #expect(try await redeemer.redeem(codes.codes[0], for: tenantB.storeKey("same")) == .noCodes)
        #expect(try await redeemer.redeem(codes.codes[0], for: project.storeKey("same")) == .noCodes)
        #expect(try await redeemer.redeem(codes.codes[0], for: tenantA.storeKey("same")) == .redeemed(remaining: 9))
    }

    @Test func customTokensAreUnsignedForTheEmulatorAndRefusedWithoutAKey() throws {
        let emulator = IdentityAdmin.emulator(projectID: "demo-x", hostAndPort: "127.0.0.1:1")
        let token = try emulator.createCustomToken(uid: "u1", developerClaims: ["role": .string("admin")])
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts[2].isEmpty)
        #expect((try? emulator.createCustomToken(uid: "")) == nil)
        #expect(throws: AdminValidationError(field: "developerClaims.exp", message: "is a reserved claim")) {
            _ = try emulator.createCustomToken(uid: "u1", developerClaims: ["exp": .number(1)])
        }
        #expect(throws: AdminValidationError(field: "uid", message: "must have 1 to 128 characters, not 129")) {
            _ = try emulator.createCustomToken(uid: String(repeating: "u", count: 129))
        }
        let staticToken = IdentityAdmin(
            projectID: "p", credential: StaticAccessTokenCredential(token: "t"),
            configuration: ClientConfiguration(emulatorHost: nil))
        let noKey = #expect(throws: AdminValidationError.self) { _ = try staticToken.createCustomToken(uid: "u1") }
        #expect(noKey?.field == "credential")
    }
}

/// The notify hook's events, in order.
final class EventRecords: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [AccountRecovery.Event] = []
    func append(_ event: AccountRecovery.Event) { lock.withLock { stored.append(event) } }
    var all: [AccountRecovery.Event] { lock.withLock { stored } }
}

/// Every event recorded, in order.
actor CollectedSecurityEvents: SecurityEventSink {
    private(set) var events: [SecurityEvent] = []

    func record(_ event: SecurityEvent) { events.append(event) }
}
