import Foundation
import HTTPTypes
import Hummingbird
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityOTP
import IdentityOTPFormats
import Logging
import MultiFactorAuth

/// The handlers of signing up and in: the password, the second factor,
/// a recovery code, and the recovery codes a user is given.
extension TOTPLoginApp {
    func signUp(_ form: FormFields, _ visit: inout Visit) async -> Outcome {
        let email = form["email"]
        let auth = backend.newAuth()
        do {
            let user = try await auth.createUser(withEmail: email, password: form["password"]).user
            try await user.sendEmailVerification()
            logger.info("signed up", metadata: ["uid": "\(user.uid)"])
            let link = try await backend.verificationLink(for: email)
            return .html(Pages.verifyEmail(email: email, link: link))
        } catch let error as AuthErrorCode {
            return .html(
                Pages.signUp(csrf: visit.state.csrfToken, email: email, error: Self.sentence(error)),
                status: .badRequest)
        } catch {
            return failure(error, during: "sign-up")
        }
    }

    func logIn(_ form: FormFields, from address: String?, _ visit: inout Visit) async -> Outcome {
        // A new attempt ends any sign-in in flight on this browser (another user's included).
        visit.state.pendingSignIn = nil
        let email = form["email"]
        let account = AttemptLimits.accountKey(email: email)
        if case .refused(let refusal) = await limits.admit(.password, account: account, address: address) {
            return limits.page(for: refusal, .password)
        }
        let auth = backend.newAuth()
        do {
            let result = try await auth.signIn(withEmail: email, password: form["password"])
            await limits.succeeded(.password, account: account, address: address)
            visit.rotate()
            return await signedIn(result.user, auth: auth, &visit)
        } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
            // The password was right: its count starts again.
            await limits.succeeded(.password, account: account, address: address)
            guard let resolver = error.userInfo[AuthErrors.userInfoMultiFactorResolverKey] as? MultiFactorResolver,
                Self.totpHint(resolver.snapshot) != nil
            else {
                return errorPage(
                    error, title: "This app cannot complete your sign-in",
                    explanation: "Your account's second factor is not an authenticator app.",
                    next: ("/login", "Back to sign-in"))
            }
            visit.rotate()
            visit.state.pendingSignIn = BrowserState.PendingSignIn(
                resolver: resolver.snapshot, accountKey: account, email: email,
                passwordCheckedAt: Date())
            return .redirect("/login/totp")
        } catch let error as AuthErrorCode {
            return .html(
                Pages.login(csrf: visit.state.csrfToken, email: email, error: Self.sentence(error)),
                status: .unauthorized)
        } catch {
            return failure(error, during: "sign-in")
        }
    }

    func secondFactor(_ form: FormFields, from address: String?, _ visit: inout Visit) async -> Outcome {
        guard let pending = visit.state.pendingSignIn, let hint = Self.totpHint(pending.resolver) else {
            return .redirect("/login")
        }
        let resolver: MultiFactorResolver
        do { resolver = try MultiFactorResolver(restoring: pending.resolver, auth: backend.newAuth()) } catch {
            // Written by an app of another name: a configuration change.
            visit.state.pendingSignIn = nil
            return .redirect("/login?reason=\(LoginNotice.expired.rawValue)")
        }
        if case .refused(let refusal) = await limits.admit(.code, account: pending.accountKey, address: address) {
            visit.state.pendingSignIn = nil
            return limits.page(for: refusal, .code)
        }
        let assertion = TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: hint.uid, oneTimePassword: form["code"])
        do {
            let result = try await resolver.resolveSignIn(with: assertion)
            await limits.succeeded(.code, account: pending.accountKey, address: address)
            visit.state.pendingSignIn = nil
            visit.rotate()
            return await signedIn(result.user, auth: resolver.auth, &visit)
        } catch let error as AuthErrorCode {
            switch error.code {
            case .invalidVerificationCode:
                // Identity Platform checked the code; the app records the refusal.
                if let uid = try? await backend.admin.getUser(email: pending.email).uid {
                    await SecurityEventSystem.record(
                        SecurityEvent(
                            .codeRefused, user: backend.admin.userKey(uid), factorID: hint.uid,
                            factorKind: SecurityEvent.totpFactorKind))
                }
                // The challenge stays open: the person may type the next code.
                return .html(
                    Pages.secondFactor(
                        csrf: visit.state.csrfToken, factorName: hint.displayName ?? "TOTP",
                        error: "\(Self.sentence(error)) (\(error.code.userInfoName))"), status: .unauthorized)
            case .invalidMultiFactorSession, .sessionExpired:
                visit.state.pendingSignIn = nil
                return errorPage(
                    error, title: "Your sign-in expired",
                    explanation: "The code was not entered in time; sign in with your password again.",
                    next: ("/login", "Sign in again"))
            case .tooManyRequests:
                visit.state.pendingSignIn = nil
                return errorPage(
                    error, title: "Too many attempts",
                    explanation: "Too many wrong codes for this sign-in. Wait a moment, then sign in again.",
                    next: ("/login", "Sign in again"))
            default:
                return errorPage(
                    error, title: "Sign-in failed", explanation: Self.sentence(error), next: ("/login", "Sign in again")
                )
            }
        } catch {
            return failure(error, during: "the second factor")
        }
    }

    /// The lost-authenticator path: after the password step, a recovery
    /// code withdraws the TOTP factors, ends the other sessions and signs
    /// the user in with a custom token; the next page is the enrollment.
    func recover(_ form: FormFields, from address: String?, _ visit: inout Visit) async -> Outcome {
        guard let pending = visit.state.pendingSignIn else { return .redirect("/login") }
        let recovered: AccountRecovery.Recovered
        do {
            let uid = try await backend.admin.getUser(email: pending.email).uid
            recovered = try await recovery.recover(
                FirstFactorProof(uid: uid, checkedAt: pending.passwordCheckedAt), code: form["code"])
        } catch let error as AdminError {
            switch error.code {
            case .invalidRecoveryCode:
                // A wrong code ends this sign-in: the next try starts with the password again.
                visit.state.pendingSignIn = nil
                return .html(
                    Pages.error(
                        status: 401, title: "That is not one of your recovery codes",
                        explanation:
                            "That is not one of your unused recovery codes. Sign in with your password again to try another.",
                        firebaseCode: nil, next: ("/login", "Sign in again"), id: "recovery-code-refused"),
                    status: .unauthorized)
            case .firstFactorTooOld:
                visit.state.pendingSignIn = nil
                return .redirect("/login?reason=\(LoginNotice.expired.rawValue)")
            case .noRecoveryCodes:
                return .html(
                    Pages.recoveryCode(
                        csrf: visit.state.csrfToken, error: "Your account has no recovery codes: contact support."),
                    status: .unauthorized)
            case .tooManyRecoveryAttempts:
                visit.state.pendingSignIn = nil
                return limits.refusal
            case .recoveryStoreUnavailable: return Self.unavailable(next: "/login/recovery")
            default: return failure(error, during: "the recovery")
            }
        } catch {
            return failure(error, during: "the recovery")
        }
        // The account proved itself another way: every count of it starts
        // again, the codes' final lock included, or the new authenticator
        // would be refused.
        await limits.accountProven(pending.accountKey, address: address)
        let auth = backend.newAuth()
        do {
            let result = try await auth.signIn(withCustomToken: recovered.customToken)
            visit.state.pendingSignIn = nil
            visit.rotate()
            return await signedIn(result.user, auth: auth, then: "/enroll?reason=recovered", &visit)
        } catch let error as AuthErrorCode {
            return errorPage(
                error, title: "Sign-in failed", explanation: Self.sentence(error), next: ("/login", "Sign in again"))
        } catch {
            return failure(error, during: "the recovery sign-in")
        }
    }

    /// A user's first recovery codes, when they have none; nil when they
    /// have some, or the store failed (logged: the enrollment itself stands,
    /// and the account page offers codes again).
    func firstRecoveryCodes(for uid: String) async -> RecoveryCodes? {
        do {
            guard try await (recovery.remainingCodes(for: uid) ?? 0) == 0 else { return nil }
            return try await recovery.issueCodes(for: uid)
        } catch {
            logger.error("could not issue recovery codes", metadata: ["uid": "\(uid)", "error": "\(type(of: error))"])
            return nil
        }
    }

    /// A new set of recovery codes, only for a session whose sign-in used
    /// the authenticator in the last five minutes (a stolen session cookie
    /// alone cannot replace the codes).
    func newRecoveryCodes(_ token: DecodedIDToken) async -> Outcome {
        do {
            _ = try await backend.admin.enforce(Self.recentSecondFactorSignIn, on: token)
        } catch {
            return .redirect("/login?reason=\(LoginNotice.recentSignInRequired.rawValue)", clearingSession: true)
        }
        do {
            let codes = try await recovery.issueCodes(for: token.uid)
            return .html(Pages.recoveryCodes(codes.codes, next: "/account"))
        } catch {
            return failure(error, during: "making recovery codes")
        }
    }

    /// New recovery codes need a sign-in with the second factor of the last
    /// five minutes (a stolen session cookie alone cannot replace the codes).
    static let recentSecondFactorSignIn = FirebaseSignInPolicy(
        secondFactor: .required(), maximumAuthenticationAge: .seconds(300))
}
