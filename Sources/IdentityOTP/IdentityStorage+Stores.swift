public import IdentityKeyValueStore

/// The security stores on a storage's two primitives: in memory
/// (`InMemoryIdentityStorage`) for one instance, on PostgreSQL
/// (`IdentityStoresPostgres`' `PostgresIdentityStores`) for a fleet, or on
/// any storage an app writes (Redis, say). Each store keeps its entries
/// under its own key prefix in the storage's `stateStore`, so one
/// table serves them all, sessions and sealed state included.
extension IdentityStorage {
    /// Each key's attempt run and last accepted step, settled in one atomic
    /// update per verification: give it to ``TOTPVerifier``. It is also the
    /// ``TOTPReplayStore`` and the ``TOTPAttemptStore`` (a verifier built
    /// with separate stores, ``RecoveryCodeRedeemer``): one name, one record.
    public var verificationStore: ExpiringStateTOTPVerificationStore {
        ExpiringStateTOTPVerificationStore(state: stateStore)
    }
    /// Each user's recovery-code verifiers.
    public var recoveryCodeStore: ExpiringStateRecoveryCodeStore { ExpiringStateRecoveryCodeStore(state: stateStore) }
    /// Each key's recent clock offsets, for ``TOTPClockDriftDetection``.
    public var clockOffsetStore: ExpiringStateTOTPClockOffsetStore {
        ExpiringStateTOTPClockOffsetStore(state: stateStore)
    }
    /// The security events, in the storage's `recordLog`.
    public var securityEventLog: AppendOnlySecurityEventLog { AppendOnlySecurityEventLog(records: recordLog) }
}
