import AdminTestSupport
import Foundation
import IdentitySupport
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitTestSupport
import Logging
import Testing

@testable import IdentityAdmin

/// `checkRevoked`'s account lookups when the backend is slow or down: one
/// lookup in flight per account, a breaker that fails fast after failures,
/// and a rate-limited warning.
@Suite struct AccountLookupTests {
    typealias State = AccountStateCache.AccountState
    static let ada = AccountStateCache.Key(tenant: nil, uid: "ada")
    static let grace = AccountStateCache.Key(tenant: nil, uid: "grace")
    struct Down: Error, CustomStringConvertible { var description: String { "connection refused" } }

    @Test func concurrentChecksOfOneAccountShareOneLookup() async throws {
        let lookups = AccountLookups()
        let calls = Locked(0)
        let results = try await withThrowingTaskGroup(of: State.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await lookups.state(for: Self.ada) {
                        calls.withLock { $0 += 1 }
                        try await Task.sleep(for: .milliseconds(300))
                        return State(exists: true, disabled: false, validSince: nil)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 20 && results.allSatisfy(\.exists))
        #expect(calls.current == 1)
    }

    @Test func aDownBackendOpensTheBreakerWhichFailsFastThenTriesOnce() async throws {
        let time = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let lookups = AccountLookups(
            openingFailures: 3, initialOpenInterval: 1, maximumOpenInterval: 4, now: { time.current })
        let calls = Locked(0)
        let backendUp = Locked(false)
        let lookUp: @Sendable () async throws -> State = {
            calls.withLock { $0 += 1 }
            guard backendUp.current else { throw Down() }
            return State(exists: true, disabled: false, validSince: nil)
        }
        func check(_ key: AccountStateCache.Key = Self.ada) async -> TokenVerificationError? {
            do {
                _ = try await lookups.state(for: key, lookUp: lookUp)
                return nil
            } catch { return error }
        }
        // Three failures reach the backend; then the breaker is open.
        for _ in 0..<3 { #expect(await check()?.code == .revocationCheckFailed) }
        #expect(calls.current == 3)
        for _ in 0..<50 {
            let refusal = await check(Self.grace)
            #expect(refusal?.code == .revocationCheckFailed)
            #expect(
                refusal?.description.contains(
                    "the last 3 account lookups failed (connection refused); the next try is in 1 s") == true,
                "\(String(describing: refusal))")
        }
        #expect(calls.current == 3, "an open breaker asked the backend")
        // After the open interval one lookup tries; it fails and the breaker opens for twice as long.
        time.withLock { $0 = $0.addingTimeInterval(1.01) }
        #expect(await check()?.code == .revocationCheckFailed)
        #expect(calls.current == 4)
        time.withLock { $0 = $0.addingTimeInterval(1.5) }
        #expect(await check() != nil)
        #expect(calls.current == 4, "the second open interval is 2 s")
        // The backend is back: the next trial succeeds and closes the breaker.
        backendUp.withLock { $0 = true }
        time.withLock { $0 = $0.addingTimeInterval(0.6) }
        #expect(await check() == nil)
        for _ in 0..<5 { #expect(await check(Self.grace) == nil) }
        #expect(calls.current == 10)
    }

    @Test func whileTheTrialRunsTheOtherChecksFailFast() async throws {
        let time = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let lookups = AccountLookups(openingFailures: 1, initialOpenInterval: 1, now: { time.current })
        _ = try? await lookups.state(for: Self.ada) { throw Down() }
        time.withLock { $0 = $0.addingTimeInterval(2) }
        let release = AsyncStream<Void>.makeStream()
        let entered = Locked(false)
        let trial = Task {
            try await lookups.state(for: Self.ada) {
                entered.withLock { $0 = true }
                for await _ in release.stream { break }
                return State(exists: true, disabled: false, validSince: nil)
            }
        }
        // Once the trial asks the backend, another account is refused at once.
        for _ in 0..<1000 where !entered.current { try await Task.sleep(for: .milliseconds(10)) }
        var refusal: TokenVerificationError?
        do {
            _ = try await lookups.state(for: Self.grace) { State(exists: true, disabled: false, validSince: nil) }
        } catch { refusal = error }
        #expect(refusal?.code == .revocationCheckFailed)
        release.continuation.yield()
        release.continuation.finish()
        #expect(try await trial.value.exists)
        _ = try await lookups.state(for: Self.grace) { State(exists: true, disabled: false, validSince: nil) }
    }

    @Test func failuresAreWarnedAtMostOncePerInterval() async throws {
        let records = LogRecords()
        let time = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let lookups = AccountLookups(
            openingFailures: 3, initialOpenInterval: 0.001, warningInterval: 60,
            logger: Logger(label: "test") { _ in CapturingLogHandler(records: records) }, now: { time.current })
        for _ in 0..<10 {
            _ = try? await lookups.state(for: Self.ada) { throw Down() }
            time.withLock { $0 = $0.addingTimeInterval(1) }
        }
        #expect(records.lines.count == 1, "\(records.lines)")
        #expect(
            records.lines.first?.contains("warning") == true
                && records.lines.first?.contains("connection refused") == true, "\(records.lines)")
        time.withLock { $0 = $0.addingTimeInterval(60) }
        _ = try? await lookups.state(for: Self.ada) { throw Down() }
        #expect(records.lines.count == 2, "\(records.lines)")
        #expect(records.lines.last?.contains("failed 11 times in a row") == true, "\(records.lines)")
    }

    /// A blackholed backend, through `checkNotRevoked`: without the breaker
    /// every check waits the request deadline; with it, the first three do
    /// and the rest answer at once. Both sides in one run; the figures print.
    @Test func aBlackholedBackendCostsThreeDeadlinesNotOnePerRequest() async throws {
        try await EmulatorSetup.with(project: "demo-blackhole") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let token = try await setup.admin.verifyIDToken(tokens.totp)
            let blackhole = try await HostileHTTPServer(.silent)
            defer { Task { try? await blackhole.shutdown() } }
            let deadline = Duration.seconds(1)
            func admin() -> IdentityAdmin {
                IdentityAdmin(
                    projectID: "demo-blackhole", credential: EmulatorOwnerCredential(),
                    configuration: ClientConfiguration(
                        transport: AsyncHTTPClientTransport.failingFast, emulatorHost: blackhole.hostAndPort,
                        requestTimeout: deadline), tokenCache: .disabled)
            }
            let clock = ContinuousClock()
            func timed(_ admin: IdentityAdmin, _ count: Int) async -> [Duration] {
                var times: [Duration] = []
                for _ in 0..<count {
                    times.append(await clock.measure { _ = try? await admin.checkNotRevoked(token) })
                }
                return times
            }
            // Before: each check waits for the deadline (three are enough to show it).
            let withoutBreaker = admin()
            let unguarded = AccountLookups(openingFailures: .max)
            let before = await timed(
                IdentityAdmin(
                    projectID: "demo-blackhole", credential: EmulatorOwnerCredential(),
                    configuration: withoutBreaker.configuration,
                    tokenCache: .disabled, accountLookups: unguarded), 3)
            #expect(before.allSatisfy { $0 >= deadline * 0.9 }, "\(before)")
            // After: the first request, then the next hundred.
            let guarded = admin()
            let first = await timed(guarded, 1)[0]
            let next = await timed(guarded, 100).sorted()
            let p50 = next[49]
            let p99 = next[98]
            print(
                "blackholed backend, deadline \(deadline): before: every check \(before.map { $0.formatted(.units(allowed: [.milliseconds])) }); after: first \(first.formatted(.units(allowed: [.milliseconds]))), next 100 p50 \(p50.formatted(.units(allowed: [.microseconds]))) p99 \(p99.formatted(.units(allowed: [.milliseconds])))"
            )
            #expect(first >= deadline * 0.9)
            #expect(
                next.filter { $0 >= deadline * 0.9 }.count == 2,
                "the second and third checks wait; the rest fail fast: \(next.suffix(5))")
            #expect(p50 < deadline / 4, "\(p50)")
        }
    }
}
