#if Emulator
import Foundation
import HTTPTypes
import IdentityToolkit
import IdentitySupport

/// Calls the project's configured blocking functions as production does
/// (firebase-tools' `fetchBlockingFunction` for the facts): a POST of
/// `{"data": {"jwt": …}}` whose event the emulator signs with its ID
/// tokens' key, answered within 7 seconds. An allowed attempt takes the
/// function's changes (display name, photo, disabled, verified address,
/// custom claims; `sessionClaims` into this sign-in's ID token alone); a
/// refusal, a failure or a late answer fails the attempt with
/// `BLOCKING_FUNCTION_ERROR_RESPONSE`, and the session it would have
/// started is withdrawn. Without a configured trigger nothing is called.
struct BlockingFunctionCalls: Sendable {
    let services: EmulatorServices
    let transport: any HTTPTransport

    /// Identity Platform's wait for a blocking function.
    static let budget: Duration = .seconds(7)
    /// The largest answer read.
    static let maximumAnswerBytes = 64 * 1024

    /// A first factor's sign-in, as the functions see it and as a refusal
    /// undoes it.
    struct SignIn: Sendable {
        /// `sign_in_method`: `password`, `emailLink`, `phone` or the IdP's id.
        var method: String
        /// Whether the attempt created the account: `beforeCreate` first,
        /// and a refusal deletes it again.
        var isNewUser = false
        /// The account as it was before the attempt changed it (a linked
        /// provider or number, a verified address): a refusal puts it back,
        /// as production never writes a refused attempt's changes.
        var previous: EmulatedUser? = nil
        /// The IdP's profile of the user (`raw_user_info`).
        var rawUserInfo: String? = nil
        /// The IdP's tokens, forwarded as the project's
        /// `forwardInboundCredentials` says.
        var providerTokens = ProviderTokens()
        /// The client's User-Agent, as production forwards it.
        var userAgent: String? = nil
    }

    /// An IdP's tokens from a sign-in; secrets.
    struct ProviderTokens: Sendable {
        var idToken: String? = nil
        var accessToken: String? = nil
        var refreshToken: String? = nil
    }

    /// The User-Agent of `request`, for the event's `user_agent`.
    static func userAgent(of request: APIServerRequest) -> String? {
        request.headerFields[.userAgent].map { LogSafeText.escaping($0, limit: 256) }
    }

    /// Whether `realm`'s project has any trigger: a route keeps the
    /// account's earlier state only then (a refusal needs it).
    static func isConfigured(_ state: EmulatorState, _ realm: Realm) -> Bool {
        state.projects[realm.project]?.blockingFunctions.triggers?.values.contains {
            $0.functionUri?.isEmpty == false
        } == true
    }

    /// The accounts of `realm` before an attempt changes them, when its
    /// project has triggers (a refusal puts the account back:
    /// ``SignIn/previous``). A copy on write: it costs only then, and only
    /// when the attempt changes an account.
    static func accountsBefore(_ state: EmulatorState, _ realm: Realm) -> AccountTable? {
        isConfigured(state, realm) ? state.accounts(in: realm) : nil
    }

    /// `beforeCreate` (for a new account), then `beforeSignIn`, for a
    /// sign-in that made `grant`: the grant as the functions leave it (its
    /// session claims set). Anonymous and custom-token sign-ins and an
    /// admin's creation call nothing, as in production.
    ///
    /// A refusal, a failure or a late answer fails the attempt with
    /// `BLOCKING_FUNCTION_ERROR_RESPONSE`: the account is deleted (when
    /// new) or put back as it was, and the session withdrawn. An account a
    /// function disabled stays disabled, and the attempt fails with
    /// `USER_DISABLED`.
    func signIn(_ grant: SessionGrant, _ attempt: SignIn) async throws -> SessionGrant {
        do {
            let created = attempt.isNewUser ? try await call(.beforeCreate, grant, attempt) : grant
            return try await call(.beforeSignIn, created, attempt)
        } catch let error as APIServerError where error.shortCode == APIServerError.userDisabled.shortCode {
            await withdraw(grant)
            throw error
        } catch {
            let uid = grant.uid
            let realm = grant.realm
            let previous = attempt.previous
            let isNew = attempt.isNewUser
            _ = try? await services.run { state, _ in
                if isNew {
                    try AdminAccountRules.delete(&state, realm: realm, localId: uid)
                } else if let previous {
                    state.store(previous)
                }
            }
            await withdraw(grant)
            throw error
        }
    }

    private func call(_ type: BlockingEventType, _ grant: SessionGrant, _ attempt: SignIn) async throws
        -> SessionGrant
    {
        let events = services.blockingEvents
        let eventID = Data.randomToken(bytes: 16)
        let found: (url: String, claims: BlockingEventClaims)? = try await services.run { state, context in
            guard let project = state.projects[grant.realm.project],
                let url = project.blockingFunctions.triggers?[type.rawValue]?.functionUri, !url.isEmpty,
                let user = state.user(grant.uid, in: grant.realm)
            else { return nil }
            let event = BlockingEventTokens.Attempt(
                type: type, signInMethod: attempt.method, secondFactor: grant.facts.secondFactor?.rawValue,
                ipAddress: "127.0.0.1", userAgent: attempt.userAgent, rawUserInfo: attempt.rawUserInfo,
                providerTokens: attempt.providerTokens.forwarded(
                    by: project.blockingFunctions.forwardInboundCredentials))
            return (
                url, events.claims(for: user, attempt: event, functionURL: url, eventID: eventID, at: context.now)
            )
        }
        guard let found else { return grant }
        let started = ContinuousClock.now
        var call = BlockingCallLog.Call(
            at: services.clock.now, trigger: type.rawValue, project: grant.realm.project, uid: grant.uid,
            tenant: grant.realm.tenant, method: attempt.method, outcome: .allowed([]))
        defer {
            call.duration = ContinuousClock.now - started
            services.blockingCallLog.record(call)
        }
        do {
            let update = try await post(try events.sign(found.claims), to: found.url)
            let applied = try await apply(update, of: type, to: grant)
            call.outcome = .allowed(
                update?.updateMask.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? [])
            return applied
        } catch {
            call.outcome = .refused(
                (error as? APIServerError).map { $0.detail ?? $0.shortCode } ?? "the call failed")
            throw error
        }
    }

    /// The function's answer: its changes, or the refusal as the client sees it.
    private func post(_ jwt: String, to url: String) async throws -> BlockingUserRecordUpdate? {
        guard let target = URL(string: url), ["http", "https"].contains(target.scheme?.lowercased() ?? "") else {
            throw APIServerError.blockingFunctionErrorResponse(
                "((Invalid function URI \(LogSafeText.escaping(url)).))")
        }
        // A config an import brought was never checked when it was set.
        do {
            try TriggerAddressRules.check(
                url, field: "functionUri", allowLinkLocal: services.allowLinkLocalTriggers)
        } catch let error as APIServerError {
            throw APIServerError.blockingFunctionErrorResponse("((\(error.detail ?? error.shortCode).))")
        }
        var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: nil)
        request.url = target
        request.headerFields[.contentType] = "application/json"
        let body = try CanonicalJSON.encoder.encode(
            BlockingFunctionRequest(data: BlockingFunctionRequestData(jwt: jwt)))
        let (response, data): (HTTPResponse, Data)
        do {
            (response, data) = try await transport.send(
                request, body: body,
                options: TransportOptions(timeout: Self.budget, maxResponseBytes: Self.maximumAnswerBytes))
        } catch TransportError.Code.timedOut {
            throw APIServerError.blockingFunctionErrorResponse(
                "((Deadline exceeded making request to \(LogSafeText.escaping(url)).))")
        } catch {
            throw APIServerError.blockingFunctionErrorResponse(
                "((Failed to make request to \(LogSafeText.escaping(url)).))")
        }
        guard response.status.kind == .successful else {
            // The function's own message, as production shows it.
            let message = (try? JSONDecoder().decode(BlockingFunctionErrorResponse.self, from: data))?.error.message
            throw APIServerError.blockingFunctionErrorResponse(
                LogSafeText.escaping(
                    message ?? "HTTP request to \(url) returned HTTP error \(response.status.code)", limit: 512))
        }
        guard let answer = try? JSONDecoder().decode(BlockingFunctionResponse.self, from: data) else {
            throw APIServerError.blockingFunctionErrorResponse("((Response body is not valid JSON.))")
        }
        return answer.userRecord
    }

    /// Applies the fields the update's mask names to the stored user and
    /// to the grant.
    private func apply(_ update: BlockingUserRecordUpdate?, of type: BlockingEventType, to grant: SessionGrant)
        async throws -> SessionGrant
    {
        guard let update else { return grant }
        let fields = Set(update.updateMask.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        typealias Field = BlockingUserRecordUpdate.FieldPath
        let customAttributes =
            fields.contains(Field.customClaims) ? try Self.claimsText(update.customClaims ?? [:]) : nil
        let sessionClaims =
            type == .beforeSignIn && fields.contains(Field.sessionClaims) ? update.sessionClaims ?? [:] : nil
        if let sessionClaims { _ = try Self.claimsText(sessionClaims) }
        try Self.checkProfile(update, fields)
        let updated = try await services.run { state, _ -> EmulatedUser? in
            guard var user = state.user(grant.uid, in: grant.realm) else { return nil }
            if fields.contains(Field.displayName) { user.displayName = update.displayName }
            // firebase-functions names it `photoURL`, Google's emulator `photoUrl`.
            if fields.contains(Field.photoURL) { user.photoUrl = update.photoURL }
            if fields.contains(Field.photoUrl) { user.photoUrl = update.photoUrl }
            if fields.contains(Field.disabled) { user.disabled = update.disabled ?? false }
            if fields.contains(Field.emailVerified) { user.emailVerified = update.emailVerified ?? false }
            if let customAttributes { user.customAttributes = customAttributes == "{}" ? nil : customAttributes }
            state.store(user)
            return user
        }
        guard let user = updated, !user.disabled else { throw APIServerError.userDisabled }
        var result = grant
        result.displayName = user.displayName
        result.photoUrl = user.photoUrl
        result.emailVerified = user.emailVerified
        result.customAttributes = user.customAttributes
        result.sessionClaims = sessionClaims
        return result
    }

    /// The claims as the server stores them, checked by Identity
    /// Platform's rule (`CustomClaimsProblem`); a function's claims that
    /// break it fail the attempt.
    private static func claimsText(_ claims: [String: JSONValue]) throws -> String {
        switch CustomClaimsProblem.check(claims) {
        case .success(let text): return text
        case .failure(.reservedClaim(let name)):
            throw APIServerError.blockingFunctionErrorResponse("((Response sets the reserved claim \(name).))")
        case .failure(.tooLong(let characters)):
            throw APIServerError.blockingFunctionErrorResponse(
                "((Response claims are \(characters) characters, over \(IdentityPlatformLimits.maximumCustomClaimsLength).))"
            )
        }
    }

    /// The profile fields the mask names, under `accounts:update`'s rules
    /// (a function's answer is input too: a name or photo URL past its
    /// bound would reach every ID token the user gets); a function's
    /// answer that breaks them fails the attempt.
    private static func checkProfile(_ update: BlockingUserRecordUpdate, _ fields: Set<String>) throws {
        typealias Field = BlockingUserRecordUpdate.FieldPath
        do {
            try InputRules.checkProfile(
                displayName: fields.contains(Field.displayName) ? update.displayName : nil,
                photoURL: fields.contains(Field.photoURL) ? update.photoURL : nil)
            try InputRules.checkProfile(
                displayName: nil, photoURL: fields.contains(Field.photoUrl) ? update.photoUrl : nil)
        } catch let error as APIServerError {
            throw APIServerError.blockingFunctionErrorResponse(
                "((Response has an invalid profile: \(error.detail ?? error.shortCode).))")
        }
    }

    /// Ends the session a refused attempt made.
    private func withdraw(_ grant: SessionGrant) async {
        _ = try? await services.run { state, _ in
            state.sessions.refreshTokens[grant.refreshToken] = nil
            let key = UserKey(realm: grant.realm, uid: grant.uid)
            state.sessions.refreshTokensByUser[key]?.removeAll { $0 == grant.refreshToken }
        }
    }
}

extension BlockingFunctionCalls.ProviderTokens {
    /// The tokens `credentials` (the project's `forwardInboundCredentials`)
    /// lets the functions see; none without it.
    func forwarded(by credentials: BlockingFunctionCredentials?) -> Self {
        Self(
            idToken: credentials?.idToken == true ? idToken : nil,
            accessToken: credentials?.accessToken == true ? accessToken : nil,
            refreshToken: credentials?.refreshToken == true ? refreshToken : nil)
    }
}
#endif
