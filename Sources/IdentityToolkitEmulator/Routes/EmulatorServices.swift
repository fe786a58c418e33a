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
    let secondFactorRules: SecondFactorRules

    /// The context of a rule run now.
    func context() -> RuleContext {
        RuleContext(now: clock.now, defaultProject: defaultProject, secondFactors: secondFactorRules)
    }

    /// Runs `rule` on the state, atomically, with the context of now.
    func run<Result: Sendable>(_ rule: @escaping @Sendable (inout EmulatorState, RuleContext) throws -> Result) async throws -> Result {
        let context = context()
        return try await store.withState { state in try rule(&state, context) }
    }
}
