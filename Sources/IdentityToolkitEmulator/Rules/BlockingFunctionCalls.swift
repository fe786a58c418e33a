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

    /// `beforeSignIn` for a sign-in that made `grant`: the grant as the
    /// function leaves it (its session claims set).
    func beforeSignIn(_ grant: SessionGrant, signInMethod: String) async throws -> SessionGrant {
        try await call(.beforeSignIn, grant, signInMethod: signInMethod)
    }

    /// `beforeCreate`, then `beforeSignIn`, for a sign-up that made the
    /// user of `grant`: a refused creation deletes the user again, so that
    /// no account is left behind.
    func afterSignUp(_ grant: SessionGrant, signInMethod: String) async throws -> SessionGrant {
        do {
            let created = try await call(.beforeCreate, grant, signInMethod: signInMethod)
            return try await call(.beforeSignIn, created, signInMethod: signInMethod)
        } catch {
            _ = try? await services.run { state, _ in try AdminAccountRules.delete(&state, realm: grant.realm, localId: grant.uid) }
            throw error
        }
    }

    private func call(_ type: BlockingEventType, _ grant: SessionGrant, signInMethod: String) async throws -> SessionGrant {
        let events = services.blockingEvents
        let eventID = Data.randomToken(bytes: 16)
        let found: (url: String, claims: BlockingEventClaims)? = try await services.run { state, context in
            guard let url = state.projects[grant.realm.project]?.blockingFunctions.triggers?[type.rawValue]?.functionUri, !url.isEmpty,
                  let user = state.user(grant.uid, in: grant.realm) else { return nil }
            let attempt = BlockingEventTokens.Attempt(type: type, signInMethod: signInMethod, secondFactor: grant.facts.secondFactor?.rawValue,
                                                      ipAddress: "127.0.0.1", userAgent: "mfa emulator")
            return (url, events.claims(for: user, attempt: attempt, functionURL: url, eventID: eventID, at: context.now))
        }
        guard let found else { return grant }
        let update: BlockingUserRecordUpdate?
        do {
            update = try await post(try events.sign(found.claims), to: found.url)
        } catch {
            await withdraw(grant)
            throw error
        }
        return try await apply(update, of: type, to: grant)
    }

    /// The function's answer: its changes, or the refusal as the client sees it.
    private func post(_ jwt: String, to url: String) async throws -> BlockingUserRecordUpdate? {
        guard let target = URL(string: url), ["http", "https"].contains(target.scheme?.lowercased() ?? "") else {
            throw APIServerError.blockingFunctionErrorResponse("((Invalid function URI \(LogSafeText.escaping(url)).))")
        }
        var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: nil)
        request.url = target
        request.headerFields[.contentType] = "application/json"
        let body = try JSONEncoder().encode(BlockingFunctionRequest(data: BlockingFunctionRequestData(jwt: jwt)))
        let (response, data): (HTTPResponse, Data)
        do {
            (response, data) = try await transport.send(request, body: body,
                                                         options: TransportOptions(timeout: Self.budget, maxResponseBytes: Self.maximumAnswerBytes))
        } catch TransportError.Code.timedOut {
            throw APIServerError.blockingFunctionErrorResponse("((Deadline exceeded making request to \(LogSafeText.escaping(url)).))")
        } catch {
            throw APIServerError.blockingFunctionErrorResponse("((Failed to make request to \(LogSafeText.escaping(url)).))")
        }
        guard response.status.kind == .successful else {
            // The function's own message, as production shows it.
            let message = (try? JSONDecoder().decode(BlockingFunctionErrorResponse.self, from: data))?.error.message
            throw APIServerError.blockingFunctionErrorResponse(LogSafeText.escaping(
                message ?? "HTTP request to \(url) returned HTTP error \(response.status.code)", limit: 512))
        }
        guard let answer = try? JSONDecoder().decode(BlockingFunctionResponse.self, from: data) else {
            throw APIServerError.blockingFunctionErrorResponse("((Response body is not valid JSON.))")
        }
        return answer.userRecord
    }

    /// Applies the fields the update's mask names to the stored user and
    /// to the grant.
    private func apply(_ update: BlockingUserRecordUpdate?, of type: BlockingEventType, to grant: SessionGrant) async throws -> SessionGrant {
        guard let update else { return grant }
        let fields = Set(update.updateMask.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        typealias Field = BlockingUserRecordUpdate.FieldPath
        let customAttributes = fields.contains(Field.customClaims) ? try Self.claimsText(update.customClaims ?? [:]) : nil
        let sessionClaims = type == .beforeSignIn && fields.contains(Field.sessionClaims) ? update.sessionClaims ?? [:] : nil
        if let sessionClaims { _ = try Self.claimsText(sessionClaims) }
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
        guard let user = updated, !user.disabled else {
            await withdraw(grant)
            throw APIServerError.userDisabled
        }
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
            throw APIServerError.blockingFunctionErrorResponse("((Response claims are \(characters) characters, over \(IdentityPlatformLimits.maximumCustomClaimsLength).))")
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
