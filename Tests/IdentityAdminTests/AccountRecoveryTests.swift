import Foundation
@testable import IdentityAdmin
import IdentityToolkit
import IdentityToolkitEmulator
import IdentityToolkitTestSupport
import Logging
import OTP
import Testing

/// The self-service path against the emulator: a user with TOTP and a
/// session cookie loses the phone, proves themselves with a recovery code
/// after the password step, and ends with the factor withdrawn, every
/// earlier session refused, a custom-token sign-in without a second factor,
/// and a new authenticator.
@Suite struct AccountRecoveryTests {
    @Test func aRecoveryCodeWithdrawsTheFactorEndsTheSessionsAndSignsTheUserIn() async throws {
        let setup = try await EmulatorSetup.start(project: "demo-self-recovery")
        let (running, admin, accounts) = (setup.running, setup.admin, setup.accounts)
        defer { Task { await running.stop() } }
        let clock = setup.clock
        clock.set(Date().addingTimeInterval(-120))

        let email = "self-recovery@example.com", password = "correct horse"
        let created = try await accounts.signUp(SignUpRequest(email: email, password: password, returnSecureToken: true))
        let uid = created.localId
        _ = try await admin.updateUser(uid, UpdateUserRequest(emailVerified: true))
        let lostPhone = try await setup.enrollTOTP(idToken: try #require(created.idToken), displayName: "Old phone")
        let signedIn = try await setup.signInWithTOTP(email: email, password: password, totp: lostPhone)
        let oldCookie = try await admin.createSessionCookie(try #require(signedIn.idToken), expiresIn: .seconds(3600))
        _ = try await admin.verifySessionCookie(oldCookie, checkRevoked: true)

        let records = LogRecords()
        let events = EventRecords()
        let recovery = AccountRecovery(
            admin: admin,
            redeemer: RecoveryCodeRedeemer(store: InMemoryRecoveryCodeStore(), attemptStore: InMemoryTOTPAttemptStore()),
            logger: Logger(label: "audit") { _ in CapturingLogHandler(records: records) },
            notify: { event in events.append(event) })
        await #expect(throws: AccountRecoveryError.self) { _ = try await recovery.recover(uid: uid, code: "0000-0000-0000") }
        let codes = try await recovery.issueCodes(for: uid)

        // The password step asks for the second factor; the user has no phone.
        let pending = try await accounts.signInWithPassword(SignInWithPasswordRequest(email: email, password: password))
        #expect(pending.mfaPendingCredential != nil)
        do {
            _ = try await recovery.recover(uid: uid, code: "0000-0000-0000", now: clock.now)
            Issue.record("a wrong code recovered the account")
        } catch {
            #expect(error.code == .invalidCode)
        }
        clock.advance(by: 2)
        let recovered = try await recovery.recover(uid: uid, code: codes.codes[0].lowercased(), now: clock.now)
        #expect(recovered.uid == uid)
        #expect(recovered.withdrawnFactors.map(\.displayName) == ["Old phone"])
        #expect(recovered.remainingCodes == 9)
        #expect(!"\(recovered)".contains(recovered.customToken))
        #expect(try await admin.getUser(uid: uid).multiFactor.enrolledFactors.isEmpty)
        // Every earlier session ends.
        await #expect(throws: TokenVerificationError.revoked) { _ = try await admin.verifySessionCookie(oldCookie, checkRevoked: true) }

        // The custom token signs the user in with no second factor asked.
        clock.advance(by: 30)
        let session = try await accounts.signInWithCustomToken(SignInWithCustomTokenRequest(token: recovered.customToken, returnSecureToken: true))
        let newToken = try #require(session.idToken)
        let decoded = try await admin.verifyIDToken(newToken, checkRevoked: true)
        #expect(decoded.uid == uid)
        _ = try await setup.enrollTOTP(idToken: newToken, displayName: "New phone")
        #expect(try await admin.getUser(uid: uid).multiFactor.enrolledFactors.map(\.displayName) == ["New phone"])

        // The used code is refused the second time; the next one works.
        do {
            _ = try await recovery.recover(uid: uid, code: codes.codes[0], now: clock.now)
            Issue.record("a used code worked again")
        } catch {
            #expect(error.code == .invalidCode)
        }
        #expect(try await recovery.recover(uid: uid, code: codes.codes[1], now: clock.now).remainingCodes == 8)

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

    @Test func wrongCodesStopAtTheLimitAndFailuresNameTheStep() async throws {
        let setup = try await EmulatorSetup.start(project: "demo-recovery-limit")
        let running = setup.running
        defer { Task { await running.stop() } }
        let recovery = AccountRecovery(
            admin: setup.admin,
            redeemer: RecoveryCodeRedeemer(store: InMemoryRecoveryCodeStore(), attemptStore: InMemoryTOTPAttemptStore(),
                                           attemptLimit: try TOTPAttemptLimit(maximumFailures: 2)),
            logger: Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() })
        let codes = try await recovery.issueCodes(for: "nobody-here")
        for _ in 0..<2 {
            do { _ = try await recovery.recover(uid: "nobody-here", code: "0000-0000-0000") } catch { #expect(error.code == .invalidCode) }
        }
        do {
            _ = try await recovery.recover(uid: "nobody-here", code: codes.codes[0])
            Issue.record("a code was checked past the limit")
        } catch {
            #expect(error.code == .tooManyAttempts)
        }
        // A right code for a user Identity Platform does not know: spent,
        // then the lookup step fails, named.
        let other = try await recovery.issueCodes(for: "ghost")
        do {
            _ = try await recovery.recover(uid: "ghost", code: other.codes[0])
            Issue.record("recovered a user that does not exist")
        } catch {
            #expect(error.code == .userLookupFailed)
            #expect("\(error)".hasPrefix("account recovery: userLookupFailed"))
            #expect(!"\(error)".contains(other.codes[0]))
        }
    }

    @Test func customTokensAreUnsignedForTheEmulatorAndRefusedWithoutAKey() throws {
        let emulator = IdentityAdmin.emulator(projectID: "demo-x", hostAndPort: "127.0.0.1:1")
        let token = try emulator.createCustomToken(uid: "u1", developerClaims: ["role": .string("admin")])
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts[2].isEmpty)
        #expect((try? emulator.createCustomToken(uid: "")) == nil)
        do { _ = try emulator.createCustomToken(uid: "u1", developerClaims: ["exp": .number(1)]) } catch { #expect(error.code == .reservedClaim) }
        let staticToken = IdentityAdmin(projectID: "p", credential: StaticAccessTokenCredential(token: "t"),
                                        configuration: ClientConfiguration(emulatorHost: nil))
        do { _ = try staticToken.createCustomToken(uid: "u1"); Issue.record("minted without a key") } catch { #expect(error.code == .noSigningKey) }
    }
}

/// The notify hook's events, in order.
final class EventRecords: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [AccountRecovery.Event] = []
    func append(_ event: AccountRecovery.Event) { lock.withLock { stored.append(event) } }
    var all: [AccountRecovery.Event] { lock.withLock { stored } }
}

