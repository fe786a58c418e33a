import Foundation
import HTTPTypes
import Hummingbird
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityOTP
import IdentityOTPFormats
import Logging
import MultiFactorAuth

/// The handlers of the account page: its factors, enrolling a TOTP
/// authenticator and withdrawing one.
extension TOTPLoginApp {
    func account(_ token: DecodedIDToken, _ request: Request, _ visit: Visit) async -> Outcome {
        var enrollmentDue: Date?
        if let enrollmentDeadline {
            // The enrolment campaign: without a factor, the account page is
            // open until the deadline (with a reminder), then only /enroll is.
            do {
                enrollmentDue = try await backend.admin.enforce(
                    FirebaseSignInPolicy(secondFactor: .required(enrollBy: enrollmentDeadline)),
                    on: token
                ).secondFactorEnrollmentDue
            } catch let error {
                switch error.code {
                case .secondFactorEnrollmentRequired:
                    return .redirect("/enroll?reason=\(EnrollNotice.required.rawValue)")
                case .secondFactorRequired:
                    return .redirect(
                        "/login?reason=\(LoginNotice.secondFactorRequired.rawValue)", clearingSession: true)
                default: return failure(error, during: "checking the sign-in policy")
                }
            }
        }
        do {
            let user = try await backend.admin.getUser(uid: token.uid)
            // The policy `.ifEnrolled`, decided on the user this page loads
            // anyway: fresh, where the policy's cached account state may be
            // up to 10 s behind a factor withdrawn on another instance.
            if !user.multiFactor.enrolledFactors.isEmpty {
                do { try token.requireSecondFactor() } catch {
                    return .redirect(
                        "/login?reason=\(LoginNotice.secondFactorRequired.rawValue)", clearingSession: true)
                }
            }
            let factors = user.multiFactor.enrolledFactors.map {
                Pages.Factor(
                    uid: $0.uid, displayName: $0.displayName ?? "(no name)", factorID: $0.factorID,
                    enrolled: $0.enrollmentTime)
            }
            var notice = AccountNotice(rawValue: request.uri.queryParameters["done"].map(String.init) ?? "")?.text
            if let seconds = request.uri.queryParameters["clock"].flatMap({ Int($0) }), abs(seconds) <= 3600,
                seconds != 0
            {
                notice =
                    (notice.map { $0 + " " } ?? "")
                    + "Your phone's clock seems about \(abs(seconds)) seconds \(seconds > 0 ? "fast" : "slow"): set it to the network's time, or its codes will stop working as it drifts further."
            }
            let remaining = try await recovery.remainingCodes(for: user.uid)
            let activity = try await securityEvents.recentEvents(for: backend.admin.userKey(user.uid), limit: 10)
            return .html(
                Pages.account(
                    csrf: visit.state.csrfToken, email: user.email ?? token.email ?? token.uid,
                    secondFactor: token.signInSecondFactor, factors: factors, remainingCodes: remaining, notice: notice,
                    enrollmentDue: enrollmentDue, activity: activity,
                    role: token.claims[SignInRules.roleClaim]?.stringValue))
        } catch {
            return failure(error, during: "loading the account")
        }
    }

    func showEnrollment(_ token: DecodedIDToken, _ request: Request, _ visit: inout Visit) async -> Outcome {
        let client: SignedInClient
        switch signedInClient(token, visit.state) {
        case .valid(let signedIn): client = signedIn
        case .refused(let answer): return answer
        }
        defer { visit.state.user = client.auth.currentSession() }
        do {
            let session = try await client.user.multiFactor.session()
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
            visit.state.pendingSecret = secret.snapshot
            let reason = EnrollNotice(rawValue: request.uri.queryParameters["reason"].map(String.init) ?? "")
            return enrollmentPage(
                secret, account: client.user.email ?? client.user.uid, csrf: visit.state.csrfToken, notice: reason?.text
            )
        } catch let error as AuthErrorCode {
            return enrollmentError(error)
        } catch {
            return failure(error, during: "starting the enrollment")
        }
    }

    func enroll(_ form: FormFields, token: DecodedIDToken, _ visit: inout Visit) async -> Outcome {
        let client: SignedInClient
        switch signedInClient(token, visit.state) {
        case .valid(let signedIn): client = signedIn
        case .refused(let answer): return answer
        }
        defer { visit.state.user = client.auth.currentSession() }
        guard let snapshot = visit.state.pendingSecret, let secret = try? TOTPSecret(restoring: snapshot) else {
            visit.state.pendingSecret = nil
            return .redirect("/enroll")
        }
        let user = client.user
        let displayName = form["displayName"].trimmingCharacters(in: .whitespacesAndNewlines)
        // The one time the app holds the key: it sees where the phone's code falls.
        let drift = Self.clockDrift(of: form["code"], secret: secret, account: user.email ?? user.uid)
        do {
            let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: form["code"])
            try await user.multiFactor.enroll(with: assertion, displayName: displayName.isEmpty ? nil : displayName)
            // The account's factors changed: the sign-in policy looks them up again here.
            backend.admin.forgetCachedAccountState(uid: user.uid)
            visit.state.pendingSecret = nil
            visit.rotate()
            logger.info("enrolled a TOTP factor", metadata: ["uid": "\(user.uid)"])
            let factor = user.multiFactor.enrolledFactors.last { $0.factorID == TOTPMultiFactorID }
            await SecurityEventSystem.record(
                SecurityEvent(
                    .factorEnrolled, user: backend.admin.userKey(user.uid), initiatedBy: .user,
                    factorID: factor?.uid, factorKind: SecurityEvent.totpFactorKind))
            var done = "/account?done=\(AccountNotice.enrolled.rawValue)"
            if let drift {
                var noticed = SecurityEvent(
                    .clockDriftNoticed, user: backend.admin.userKey(user.uid), factorID: factor?.uid,
                    factorKind: SecurityEvent.totpFactorKind)
                noticed.clockOffsetSeconds = drift.seconds
                await SecurityEventSystem.record(noticed)
                done += "&clock=\(drift.seconds)"
            }
            // The enrollment's new ID token records the TOTP sign-in; the
            // session cookie is made anew from it.
            var outcome = await renewedSession(user, then: done)
            // The first authenticator comes with recovery codes, shown once.
            if outcome.session != nil, let codes = await firstRecoveryCodes(for: user.uid) {
                outcome.kind = .html(Pages.recoveryCodes(codes.codes, next: done))
                outcome.status = .ok
            }
            return outcome
        } catch let error as AuthErrorCode where error.code == .invalidVerificationCode {
            var page = enrollmentPage(
                secret, account: user.email ?? user.uid, csrf: visit.state.csrfToken, displayName: displayName,
                error: "\(Self.sentence(error)) (\(error.code.userInfoName))")
            page.status = .badRequest
            return page
        } catch let error as AuthErrorCode {
            visit.state.pendingSecret = nil
            return enrollmentError(error)
        } catch {
            return failure(error, during: "the enrollment")
        }
    }

    func unenroll(_ form: FormFields, token: DecodedIDToken, _ visit: inout Visit) async -> Outcome {
        let client: SignedInClient
        switch signedInClient(token, visit.state) {
        case .valid(let signedIn): client = signedIn
        case .refused(let answer): return answer
        }
        defer { visit.state.user = client.auth.currentSession() }
        do {
            let withdrawn = client.user.multiFactor.enrolledFactors.first { $0.uid == form["factorUID"] }
            do {
                try await client.user.multiFactor.unenroll(withFactorUID: form["factorUID"])
            } catch let error as AuthErrorCode where error.code == .invalidUserToken {
                // Withdrawn, and every session ended with it (below).
                await recordWithdrawal(of: withdrawn, uid: client.user.uid)
                throw error
            }
            await recordWithdrawal(of: withdrawn, uid: client.user.uid)
            backend.admin.forgetCachedAccountState(uid: client.user.uid)
            logger.info("removed a factor", metadata: ["uid": "\(client.user.uid)"])
            return await renewedSession(client.user, then: "/account?done=\(AccountNotice.unenrolled.rawValue)")
        } catch let error as AuthErrorCode where error.code == .invalidUserToken {
            // Removing the newest of several factors ends every session.
            visit.signOut()
            return .redirect("/login?reason=\(LoginNotice.sessionsEnded.rawValue)", clearingSession: true)
        } catch let error as AuthErrorCode {
            return enrollmentError(error)
        } catch {
            return failure(error, during: "removing the factor")
        }
    }

    /// How far the phone's clock seems off, from the first code it showed:
    /// nil when the code falls within a step of now (a person typing as
    /// the code changes) or matches no step within ten. Identity Platform
    /// checks the codes of later sign-ins and tells the app nothing of
    /// where they fall, so enrolment is where the app can tell the user.
    static func clockDrift(of code: String, secret: TOTPSecret, account: String, at now: Date = Date())
        -> TOTPClockDrift?
    {
        guard
            let totp = try? OTPAuthURI(parsing: secret.generateQRCodeURL(withAccountName: account, issuer: "drift"))
                .totp()
        else { return nil }
        let unixNow = Int64(now.timeIntervalSince1970.rounded(.down))
        guard let present = try? totp.step(at: unixNow),
            let matched = try? totp.matchingStep(for: code, at: unixNow, window: TOTPVerifier.widestWindow)
        else { return nil }
        let steps = Int(Int64(bitPattern: matched &- present))
        return abs(steps) >= 2 ? TOTPClockDrift(steps: steps, period: totp.period) : nil
    }

    /// The user removed a factor (the SDK's client call records nothing: the
    /// app knows who and which).
    private func recordWithdrawal(of factor: MultiFactorInfo?, uid: String) async {
        await SecurityEventSystem.record(
            SecurityEvent(
                .factorWithdrawn, user: backend.admin.userKey(uid), initiatedBy: .user,
                factorID: factor?.uid, factorKind: factor?.factorID))
    }
}
