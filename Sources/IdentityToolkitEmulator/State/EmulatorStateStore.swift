#if Emulator
/// Where the emulator's state lives: the one seam between its rules and
/// its storage. Every request runs its rule as one call of
/// ``withState(_:)``, so its checks and its changes are one atomic step.
protocol EmulatorStateStore: Sendable {
    /// Runs `body` on the state, exclusively: no other call reads or changes
    /// it meanwhile. What `body` changes is kept even when it throws after
    /// changing it (a wrong code still counts as an attempt).
    func withState<Result: Sendable>(_ body: @Sendable (inout EmulatorState) throws -> Result) async throws
        -> Result
}

/// The state in this process's memory: an actor whose one method runs each
/// rule without suspension.
actor InMemoryEmulatorStateStore: EmulatorStateStore {
    private var state: EmulatorState

    /// A store holding `state` (an empty emulator by default).
    init(_ state: EmulatorState = EmulatorState()) {
        self.state = state
    }

    func withState<Result: Sendable>(_ body: @Sendable (inout EmulatorState) throws -> Result) throws -> Result {
        try body(&state)
    }
}
#endif
