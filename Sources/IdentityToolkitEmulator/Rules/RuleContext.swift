#if Emulator
import Foundation
import IdentityToolkit
import IdentityOTP

/// What every rule reads besides the state and the request: the time and
/// the emulator's settings. Rules are functions of (state, request,
/// context): no clock, no I/O, so each is testable without HTTP.
struct RuleContext: Sendable {
    /// The emulator clock's reading for this request.
    var now: Date
    /// The project API-key calls act on.
    var defaultProject: String
    /// Production's second-factor rules, with their values.
    var secondFactors: SecondFactorRules
    /// Whether a project that did not choose answers sign-in failures
    /// alike (``EmulatorConfiguration/improvedEmailPrivacy``).
    var improvedEmailPrivacyByDefault = true
    /// ``EmulatorConfiguration/allowLinkLocalTriggers``.
    var allowLinkLocalTriggers = false
    /// ``EmulatorConfiguration/googleCompatible``: Google's emulator's
    /// behaviour where this one differs by choice.
    var googleCompatible = false

    /// The attempt limit of ``SecondFactorRules/maximumCodeAttempts``.
    var attemptLimit: TOTPAttemptLimit {
        (try? TOTPAttemptLimit(maximumFailures: secondFactors.maximumCodeAttempts)) ?? .default
    }
}

extension EmulatorState {
    /// The accounts of `realm` (empty when it has none, or does not exist).
    func accounts(in realm: Realm) -> AccountTable {
        guard let project = projects[realm.project] else { return AccountTable() }
        guard let tenant = realm.tenant else { return project.accounts }
        return project.tenants[tenant]?.accounts ?? AccountTable()
    }

    /// The account `uid` of `realm`, if any.
    func user(_ uid: String, in realm: Realm) -> EmulatedUser? { accounts(in: realm)[uid] }

    /// Changes the accounts of `realm`; a tenant must exist (its project is
    /// made on first use).
    mutating func updateAccounts<Result>(in realm: Realm, _ body: (inout AccountTable) throws -> Result) rethrows
        -> Result
    {
        if let tenant = realm.tenant {
            return try body(
                &projects[realm.project, default: ProjectState()].tenants[
                    tenant, default: TenantState(config: Tenant())
                ].accounts)
        }
        return try body(&projects[realm.project, default: ProjectState()].accounts)
    }

    /// Stores `user` in its realm.
    mutating func store(_ user: EmulatedUser) {
        updateAccounts(in: user.realm) { $0.store(user) }
    }

    /// Whether `realm` exists: a project always does; a tenant once created.
    func exists(_ realm: Realm) -> Bool {
        guard let tenant = realm.tenant else { return true }
        return projects[realm.project]?.tenants[tenant] != nil
    }
}

extension EmulatorState {
    /// Refuses `email` (`EMAIL_EXISTS`) when another account of `realm`
    /// has it and the project does not allow duplicate addresses.
    func checkEmailAvailable(_ email: String, for uid: String?, in realm: Realm) throws {
        if projects[realm.project]?.allowDuplicateEmails == true { return }
        if accounts(in: realm).users(email: email).contains(where: { $0.localId != uid }) {
            throw APIServerError.emailExists
        }
    }

    /// Whether `project` answers sign-in failures alike.
    func improvedEmailPrivacy(of project: String, _ context: RuleContext) -> Bool {
        projects[project]?.improvedEmailPrivacy ?? context.improvedEmailPrivacyByDefault
    }
}
#endif
