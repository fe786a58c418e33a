#if Emulator
import Foundation
import IdentityToolkit

extension ConsolePage.Snapshot {
    /// What the emulator's page shows of one project or tenant, read in
    /// one rule run: its users (at most `userLimit`), codes, triggers and
    /// the projects and tenants to switch to.
    init(_ state: EmulatorState, project: String, tenant: String?, userLimit: Int, _ context: RuleContext) {
        let realm = Realm(project: project, tenant: tenant)
        let projectState = state.projects[project]
        let accounts = state.accounts(in: realm)
        self.init(
            now: context.now,
            projects: Array(Set(state.projects.keys).union([context.defaultProject])).sorted(),
            project: project,
            tenants: (projectState?.tenantOrder ?? []).map { ($0, projectState?.tenants[$0]?.config.displayName) },
            tenant: tenant,
            tenantExists: state.exists(realm), userCount: accounts.count,
            users: Array(accounts.sortedByID.prefix(userLimit)),
            totpWindow: TenantRules.totpWindow(state, of: realm),
            oobCodes: OutOfBandRules.list(state, realm: realm),
            smsCodes: MultiFactorRules.listVerificationCodes(state, realm: realm),
            triggers: (projectState?.blockingFunctions.triggers ?? [:]).sorted { $0.key < $1.key }.compactMap {
                event, trigger in
                trigger.functionUri.flatMap { $0.isEmpty ? nil : (event, $0) }
            })
    }
}
#endif
