#if Emulator
import Foundation
import IdentityToolkit

/// What every route of the emulator shares: the state's store, the clock,
/// the settings, token signing and action links. A route decodes the
/// request (generated), runs one rule on the state in one atomic step
/// (``run(_:)``), and signs tokens outside it.
struct EmulatorServices: Sendable {
    let store: any EmulatorStateStore
    let clock: EmulatorClock
    let tokens: SessionTokens
    let links: ActionLinks
    let defaultProject: String
    /// The project's number, which the secure-token API names (`project_id`).
    var projectNumber = EmulatorConfiguration.defaultProjectNumber
    let secondFactorRules: SecondFactorRules
    let improvedEmailPrivacyByDefault: Bool
    /// The last calls to blocking functions, for the emulator's page.
    let blockingCallLog = BlockingCallLog()
    /// The faults injected into the emulated APIs (`setFaults`, `--fault`).
    let faults = FaultInjector()
    /// ``EmulatorConfiguration/allowLinkLocalTriggers``.
    var allowLinkLocalTriggers = false
    /// ``EmulatorConfiguration/googleCompatible``.
    var googleCompatible = false

    /// The project's blocking functions, called over `URLSession`.
    var blockingFunctions: BlockingFunctionCalls {
        BlockingFunctionCalls(services: self, transport: URLSessionTransport.shared)
    }

    /// The context of a rule run now.
    func context() -> RuleContext {
        RuleContext(
            now: clock.now, defaultProject: defaultProject, secondFactors: secondFactorRules,
            improvedEmailPrivacyByDefault: improvedEmailPrivacyByDefault,
            allowLinkLocalTriggers: allowLinkLocalTriggers,
            googleCompatible: googleCompatible)
    }

    /// Whether `request` is an admin's (its credentials were read once, before
    /// the route ran): the end-user routes then take the admin fields
    /// (`localId`, `targetProjectId`, …), as production does.
    func isAdmin(_ request: APIServerRequest) -> Bool { request.hasBearerAuthorization }

    /// Runs `rule` on the state, atomically, with the context of now.
    func run<Result: Sendable>(_ rule: @escaping @Sendable (inout EmulatorState, RuleContext) throws -> Result)
        async throws -> Result
    {
        let context = context()
        return try await store.withState { state in try rule(&state, context) }
    }

    /// Writes `defaultProject`'s state to `directory` in firebase-tools'
    /// export format (``EmulatorExport``); the files written.
    func export(to directory: URL) async throws -> [String] {
        let project = defaultProject
        let files = try await run { state, context in try EmulatorExport.files(of: state, project: project, context)
        }
        try EmulatorExport.write(files, to: directory)
        return files.map(\.path)
    }
}
#endif
