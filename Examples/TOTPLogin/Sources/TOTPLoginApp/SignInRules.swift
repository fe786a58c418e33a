import Foundation
import IdentityAdmin
import IdentityToolkit
import NIOConcurrencyHelpers

/// Who holds which role: the `role` custom claim the app's blocking
/// function adds at each sign-in, so that every server reading the token
/// (this app or another) sees it without a lookup of its own.
public protocol RoleDirectory: Sendable {
    /// The role of the account whose address is `email`; nil for none.
    func role(forEmail email: String) async throws -> String?
}

/// Roles held in memory, from the `roles` setting (`alice@example.com=admin,…`).
public struct InMemoryRoleDirectory: RoleDirectory {
    private let roles: [String: String]

    /// - Parameter roles: Address → role; addresses compare without case.
    public init(_ roles: [String: String] = [:]) {
        self.roles = Dictionary(roles.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The role listed for `email`, whatever its case.
    public func role(forEmail email: String) async throws -> String? { roles[email.lowercased()] }

    /// Parses `alice@example.com=admin,bob@example.com=support`.
    /// - Throws: ``AppError/configuration(_:)`` naming the entry that is not `address=role`.
    public static func parse(_ text: String) throws -> [String: String] {
        var roles: [String: String] = [:]
        for entry in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].contains("@"), !parts[1].isEmpty, parts[1].count <= 64 else {
                throw AppError.configuration("roles: '\(entry)' is not address=role")
            }
            roles[parts[0].lowercased()] = parts[1]
        }
        return roles
    }
}

/// The rules the app's `beforeSignIn` blocking function applies at
/// Identity Platform's side, before any token is issued:
///
/// - A user of ``totpTenant`` without a TOTP factor is refused once their
///   account is older than ``enrollmentGrace`` (a new account may sign in
///   to enrol). The age is the event's own: its issue time less the
///   account's creation time, both Identity Platform's clock.
/// - A user with a role in ``roles`` gets it as the `role` custom claim
///   (the account's other claims kept); one without loses it.
public struct SignInRules: Sendable {
    /// The tenant whose users must have TOTP; nil: none must.
    public var totpTenant: String?
    /// How long a new account of that tenant may sign in without TOTP.
    public var enrollmentGrace: Duration
    /// Where roles come from.
    public var roles: any RoleDirectory

    /// The custom claim that carries the role.
    public static let roleClaim = "role"
    /// What a refused user reads (the emulator and Identity Platform show it to the client).
    public static let totpRequiredMessage =
        "This organisation requires an authenticator app (TOTP): ask your administrator to reset your account."

    /// - Parameters:
    ///   - totpTenant: The tenant whose users must have TOTP; nil: none must.
    ///   - enrollmentGrace: How long a new account of that tenant may sign in without it (a day by default).
    ///   - roles: Where the `role` claim comes from.
    public init(
        totpTenant: String? = nil, enrollmentGrace: Duration = .seconds(24 * 60 * 60),
        roles: any RoleDirectory = InMemoryRoleDirectory()
    ) {
        self.totpTenant = totpTenant
        self.enrollmentGrace = enrollmentGrace
        self.roles = roles
    }

    /// The decision for one sign-in.
    public func decide(_ signIn: BeforeSignInEvent) async throws -> BlockingFunctionDecision {
        let event = signIn.event
        if let totpTenant, event.tenantID == totpTenant, !Self.hasTOTP(event.user), accountAge(event) > enrollmentGrace
        {
            return .deny(status: .permissionDenied, message: Self.totpRequiredMessage)
        }
        var role: String?
        if let email = event.user.email { role = try await roles.role(forEmail: email) }
        var claims = event.user.customClaims ?? [:]
        guard claims[Self.roleClaim] != role.map(JSONValue.string) else { return .allow }
        claims[Self.roleClaim] = role.map(JSONValue.string)
        return .allow(updating: BlockingFunctionUpdate(customClaims: claims))
    }

    static func hasTOTP(_ user: BlockingUserRecord) -> Bool {
        user.multiFactor?.enrolledFactors?.contains { $0.factorID == SecondFactorID.totp.rawValue } == true
    }

    /// The account's age when the event was issued; zero without a creation time.
    func accountAge(_ event: AuthBlockingEvent) -> Duration {
        guard let created = event.user.metadata?.creationTime else { return .zero }
        let milliseconds = Int64(event.issuedAt.timeIntervalSince1970 * 1000) - created
        return .milliseconds(max(0, milliseconds))
    }
}

/// The app's `beforeSignIn` handler, made once the app knows the URL
/// Identity Platform calls (the events' audience): until then, and in an
/// app without rules, the route answers 503.
public final class BlockingFunctionSlot: Sendable {
    private let handler = NIOLockedValueBox<BlockingFunctionHandler?>(nil)

    /// An empty slot: the route answers 503 until ``install(_:)``.
    public init() {}

    /// Serves `handler` from now on.
    public func install(_ handler: BlockingFunctionHandler) { self.handler.withLockedValue { $0 = handler } }

    /// The handler, once installed.
    public var current: BlockingFunctionHandler? { handler.withLockedValue { $0 } }
}
