#if PostgreSQL
public import ServiceLifecycle

/// ``PostgresIdentityStores/runSweeper(every:)`` as a `Service`, from
/// ``PostgresIdentityStores/sweeper(every:)``.
public struct PostgresStoreSweeper: Service {
    let stores: PostgresIdentityStores
    let interval: Duration

    /// Sweeps every interval until graceful shutdown or cancellation; a
    /// sweep under way is cancelled (rows left for the next run), and the
    /// service returns without an error.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await stores.runSweeper(every: interval) }
    }
}
#endif
