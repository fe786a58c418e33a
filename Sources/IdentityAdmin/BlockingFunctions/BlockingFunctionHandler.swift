public import Foundation
public import IdentityOTP
import IdentitySupport
@_spi(Generated) import IdentityToolkit
import IdentityToolkitJWT
public import Logging

/// Serves Identity Platform's blocking functions (`beforeCreate`,
/// `beforeSignIn`) from a Swift server, framework-neutral as
/// ``FirebaseRouteProtection`` is (IdentityAdminHummingbird and
/// IdentityAdminVapor route requests to it).
///
/// Each request's event JWT goes through the verifier's sequence and key
/// cache (RS256, a published `kid`, the signature), then: `iss` is this
/// project's, `aud` is ``functionURL`` exactly, `exp` has not passed,
/// `iat` is not in the future, the tenant is the admin's (a
/// `TenantAwareAuth` takes its tenant's events only), and the event id was
/// never seen before (``replayStore``, shared by a fleet). With
/// ``IdentityAdmin/emulator(projectID:hostAndPort:transport:)`` the keys are
/// the emulator's, which signs the events it sends.
///
/// The app's closure then has ``budget`` (7 seconds, Identity Platform's
/// wait); one that takes longer is cancelled and the answer is
/// `DEADLINE_EXCEEDED`, as Identity Platform would give up anyway. Any
/// error status refuses the attempt: the client sees
/// `BLOCKING_FUNCTION_ERROR_RESPONSE` and the message.
public struct BlockingFunctionHandler: Sendable {
    /// The app's decision for a `beforeCreate` event.
    public typealias BeforeCreate = @Sendable (BeforeCreateEvent) async throws -> BlockingFunctionDecision
    /// The app's decision for a `beforeSignIn` event.
    public typealias BeforeSignIn = @Sendable (BeforeSignInEvent) async throws -> BlockingFunctionDecision

    /// The function's own URL, as configured at Identity Platform: the
    /// events' required audience.
    public let functionURL: String
    /// How long the app's closure may take.
    public let budget: Duration
    /// Where seen event ids are kept until their events expire.
    public let replayStore: any TOTPReplayStore
    let auth: BaseAuth
    let beforeCreate: BeforeCreate?
    let beforeSignIn: BeforeSignIn?
    let logger: Logger

    /// - Parameters:
    ///   - auth: The project's admin (every tenant's events) or a tenant's.
    ///   - functionURL: The URL Identity Platform calls (the events' `aud`).
    ///   - replayStore: Where event ids are remembered (its record-once call
    ///     is the atomic insert the check needs): a shared one for a fleet.
    ///   - budget: How long the closure may take; 7 seconds by default.
    ///   - logger: Where refusals are noted (never a token or a credential).
    ///   - beforeCreate: The decision for `beforeCreate` events; nil refuses them.
    ///   - beforeSignIn: The decision for `beforeSignIn` events; nil refuses them.
    public init(
        auth: BaseAuth, functionURL: String, replayStore: any TOTPReplayStore = ExpiringStateTOTPVerificationStore(),
        budget: Duration = .seconds(7),
        logger: Logger = Logger(label: "IdentityAdmin.BlockingFunctions"),
        beforeCreate: BeforeCreate? = nil, beforeSignIn: BeforeSignIn? = nil
    ) {
        self.auth = auth
        self.functionURL = functionURL
        self.replayStore = replayStore
        self.budget = budget
        self.logger = logger
        self.beforeCreate = beforeCreate
        self.beforeSignIn = beforeSignIn
    }

    /// The answer to one request (a POST of JSON): 200 with the changes,
    /// or an error status with `{"error": {"status", "message"}}`. Never
    /// throws: every failure is an answer, and none names a token.
    /// - Parameters:
    ///   - body: The request's body.
    ///   - contentType: Its `Content-Type` (`application/json`, as Identity Platform sends).
    ///   - now: The current time (for tests).
    public func respond(to body: Data, contentType: String?, now: Date = Date()) async -> BlockingFunctionAnswer {
        guard contentType?.lowercased().contains(BlockingFunctionAnswer.contentType) == true else {
            return .refusal(.invalidArgument, "Bad Request")
        }
        let jwt: String
        do {
            jwt = try JSONDecoder().decode(BlockingFunctionRequest.self, from: body).data.jwt
        } catch {
            return .refusal(.invalidArgument, "Bad Request")
        }
        let event: AuthBlockingEvent
        do {
            event = try await verifiedEvent(jwt, now: now)
        } catch {
            logger.notice("blocking event refused", metadata: ["reason": "\(error.reasonName)"])
            return .refusal(error.status, error.publicMessage)
        }
        let decision: BlockingFunctionDecision
        do {
            decision = try await decide(event)
        } catch is DeadlineExceeded {
            logger.warning(
                "blocking function over its budget",
                metadata: ["event": "\(event.id)", "budgetSeconds": "\(budget.components.seconds)"])
            return .refusal(.deadlineExceeded, "The blocking function did not answer in time.")
        } catch let refusal as BlockingEventRefusal {
            return .refusal(refusal.status, refusal.publicMessage)
        } catch {
            logger.error("blocking function failed", metadata: ["event": "\(event.id)", "error": "\(type(of: error))"])
            return .refusal(.internal, "An unexpected error occurred.")
        }
        return BlockingFunctionAnswer(decision, for: event.type)
    }

    /// The event of `jwt`, once every check passed.
    /// - Throws: ``BlockingEventRefusal``.
    public func verifiedEvent(_ jwt: String, now: Date = Date()) async throws(BlockingEventRefusal) -> AuthBlockingEvent
    {
        let claims: BlockingEventClaims
        do {
            claims = try await auth.idTokenVerifier.verifiedClaims(of: jwt, as: BlockingEventClaims.self)
        } catch {
            throw BlockingEventRefusal(.token(error))
        }
        do throws(ClaimFailure) {
            try claims.verifyIssuer(TokenIssuerPrefix.idToken.rawValue + auth.projectID, audience: functionURL)
            try claims.verifyLifetime(at: now, clockSkew: auth.idTokenVerifier.clockSkew)
            try claims.verifyTenant(auth.tenantID)
        } catch {
            throw BlockingEventRefusal(.token(TokenVerificationError(claimFailure: error)))
        }
        let expiresAt = claims.expiresAt
        guard let user = claims.userRecord, IdentityPlatformLimits.isValidUID(user.uid) else {
            throw BlockingEventRefusal(.token(.invalidSubject))
        }
        guard !claims.eventID.isEmpty else { throw BlockingEventRefusal(.token(.malformed("the event has no id"))) }
        let recorded: Bool
        do {
            // Kept until the event expires: after that it is refused anyway.
            recorded = try await replayStore.recordAcceptedStep(
                1, for: "blocking-event/\(auth.projectID)/\(claims.eventID)", at: now,
                retainUntil: expiresAt.addingTimeInterval(60))
        } catch {
            throw BlockingEventRefusal(.replayCheckFailed)
        }
        guard recorded else { throw BlockingEventRefusal(.replayed) }
        return AuthBlockingEvent(claims: claims, user: user)
    }

    /// The app's decision, within the budget.
    private func decide(_ event: AuthBlockingEvent) async throws -> BlockingFunctionDecision {
        switch event.type {
        case .beforeCreate:
            guard let beforeCreate else { throw BlockingEventRefusal(.noHandler(event.type.rawValue)) }
            return try await Deadline.run(within: budget) { try await beforeCreate(BeforeCreateEvent(event: event)) }
        case .beforeSignIn:
            guard let beforeSignIn else { throw BlockingEventRefusal(.noHandler(event.type.rawValue)) }
            return try await Deadline.run(within: budget) { try await beforeSignIn(BeforeSignInEvent(event: event)) }
        default:
            throw BlockingEventRefusal(.noHandler(event.type.rawValue))
        }
    }
}

/// A blocking function's HTTP answer: its status and JSON body.
public struct BlockingFunctionAnswer: Sendable, Hashable {
    /// 200, or the refusal's status.
    public let status: Int
    /// The JSON body.
    public let body: Data
    /// The body's media type.
    public static let contentType = "application/json"

    init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }

    static func refusal(_ status: BlockingFunctionDenial.Status, _ message: String) -> BlockingFunctionAnswer {
        let body = BlockingFunctionErrorResponse(error: BlockingFunctionError(status: status.name, message: message))
        return BlockingFunctionAnswer(
            status: status.httpStatus, body: (try? JSONEncoder().encode(body)) ?? Data("{}".utf8))
    }

    /// The answer to `decision`: an update whose claims break the rules is
    /// refused here (`INVALID_ARGUMENT`), as firebase-functions refuses it,
    /// rather than by Identity Platform with a vaguer error.
    init(_ decision: BlockingFunctionDecision, for type: BlockingEventType) {
        switch decision.verdict {
        case .deny(let denial):
            self = .refusal(denial.status, denial.message)
        case .allow(let update):
            do {
                var update = update
                if type != .beforeSignIn { update?.sessionClaims = nil }
                try update.map(CustomClaimsRule.check)
                self.init(
                    status: 200,
                    body: try CanonicalJSON.encoder.encode(BlockingFunctionResponse(userRecord: update?.wire())))
            } catch let error as AdminValidationError {
                self = .refusal(.invalidArgument, error.description)
            } catch {
                self = .refusal(.internal, "An unexpected error occurred.")
            }
        }
    }
}

/// Why a blocking event was refused before the app's closure saw it (or
/// why the closure could not run).
public struct BlockingEventRefusal: Error, Sendable, CustomStringConvertible {
    enum Reason: Sendable {
        case token(TokenVerificationError)
        case replayed
        case replayCheckFailed
        case noHandler(String)
    }

    let reason: Reason

    init(_ reason: Reason) { self.reason = reason }

    /// The token check that failed, if the refusal is one.
    public var tokenError: TokenVerificationError? {
        if case .token(let error) = reason { return error }
        return nil
    }

    /// Whether the event's id was seen before.
    public var isReplay: Bool {
        if case .replayed = reason { return true }
        return false
    }

    /// The answer's status: 401 for an event that is not Identity
    /// Platform's (forged, expired, for another function or tenant, seen
    /// before), 503 when the keys or the replay store cannot answer, 400
    /// for an event type this handler does not serve.
    var status: BlockingFunctionDenial.Status {
        switch reason {
        case .token(let error): error.code == .keysUnavailable ? .unavailable : .unauthenticated
        case .replayed: .unauthenticated
        case .replayCheckFailed: .unavailable
        case .noHandler: .invalidArgument
        }
    }

    /// What the answer says: short, the same for every forged token.
    var publicMessage: String {
        switch reason {
        case .token(let error):
            error.code == .keysUnavailable ? "The signing keys cannot be fetched." : "The event's token is not valid."
        case .replayed: "The event was already handled."
        case .replayCheckFailed: "The event cannot be checked now."
        case .noHandler(let type): "No handler for \(LogSafeText.escaping(type, limit: 32)) events."
        }
    }

    /// The refusal's short name, for logs.
    var reasonName: String {
        switch reason {
        case .token(let error): error.code.description
        case .replayed: "replayed"
        case .replayCheckFailed: "replayCheckFailed"
        case .noHandler: "noHandler"
        }
    }

    /// What was wrong, never the token.
    public var description: String {
        switch reason {
        case .token(let error): "blocking event refused: \(error)"
        case .replayed: "blocking event refused: its id was seen before"
        case .replayCheckFailed: "blocking event refused: the replay store cannot be reached"
        case .noHandler(let type):
            "blocking event refused: no handler for \(LogSafeText.escaping(type, limit: 32)) events"
        }
    }
}
