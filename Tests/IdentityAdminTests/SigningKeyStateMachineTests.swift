import Foundation
import Testing

@testable import IdentityAdmin

/// The key cache's decisions, with times and fetch outcomes alone (keys
/// are strings here): no lock, no task, no network.
@Suite struct SigningKeyStateMachineTests {
    typealias Machine = SigningKeyStateMachine<String>
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = Machine.Policy(
        staleGrace: 3600, minimumRefetchInterval: 30, initialBackoff: 1, maximumBackoff: 8)

    static func set(_ keys: [String: String], fetchedAt: Date = t0, maxAge: TimeInterval = 600) -> Machine.KeySet {
        Machine.KeySet(keys: keys, fetchedAt: fetchedAt, expiresAt: fetchedAt.addingTimeInterval(maxAge))
    }

    @Test func aColdCacheFetchesAndAFreshSetAnswers() {
        var machine = Machine(policy: Self.policy)
        #expect(machine.key(for: "k1", at: Self.t0) == .fetch)
        machine.fetchSucceeded(Self.set(["k1": "key-1"]))
        #expect(machine.key(for: "k1", at: Self.t0.addingTimeInterval(10)) == .use("key-1"))
        #expect(machine.freshKey(for: "k1", at: Self.t0.addingTimeInterval(599)) == "key-1")
        #expect(machine.freshKey(for: "k1", at: Self.t0.addingTimeInterval(600)) == nil)
    }

    @Test func anUnknownKidFetchesAgainOnlyOnceTheSetIsOldEnough() {
        var machine = Machine(policy: Self.policy)
        machine.fetchSucceeded(Self.set(["k1": "key-1"]))
        // A forged kid cannot make the cache hammer the route.
        #expect(machine.key(for: "forged", at: Self.t0.addingTimeInterval(29)) == .unknownKey)
        // A rotation: the set is old enough to be asked again.
        #expect(machine.key(for: "k2", at: Self.t0.addingTimeInterval(30)) == .fetch)
    }

    @Test func anExpiredSetServesWithinTheGraceWhileOneRefreshRunsBehind() {
        var machine = Machine(policy: Self.policy)
        machine.fetchSucceeded(Self.set(["k1": "key-1"]))
        let expired = Self.t0.addingTimeInterval(700)
        let first = machine.key(for: "k1", at: expired)
        #expect(first == .useAndRefreshInBackground("key-1"))
        // One refresh at a time.
        let second = machine.key(for: "k1", at: expired)
        #expect(second == .use("key-1"))
        let whileRefreshing = machine.generation(at: expired)
        #expect(whileRefreshing.generation == 0 && !whileRefreshing.refreshInBackground)
        machine.backgroundRefreshEnded()
        // A verifier answering from its token cache starts the next one.
        let afterwards = machine.generation(at: expired)
        #expect(afterwards.generation == 0 && afterwards.refreshInBackground)
        // Beyond the grace the stale set is not used: the caller fetches.
        machine.backgroundRefreshEnded()
        let beyond = machine.key(for: "k1", at: Self.t0.addingTimeInterval(600 + 3600))
        #expect(beyond == .fetch)
    }

    @Test func failedFetchesBackOffDoublingToTheCap() {
        var machine = Machine(policy: Self.policy)
        var time = Self.t0
        var waits: [TimeInterval] = []
        for _ in 0..<6 {
            #expect(machine.key(for: "k1", at: time) == .fetch)
            machine.fetchFailed("route down", at: time)
            waits.append(machine.nextAttempt.timeIntervalSince(time))
            // Before the backoff ends, nothing is fetched.
            #expect(
                machine.key(for: "k1", at: time)
                    == .keysUnavailable(
                        failures: machine.consecutiveFailures, lastFailure: "route down",
                        nextAttempt: machine.nextAttempt))
            time = machine.nextAttempt
        }
        #expect(waits == [1, 2, 4, 8, 8, 8])
        // A success clears the backoff.
        machine.fetchSucceeded(Self.set(["k1": "key-1"], fetchedAt: time))
        #expect(machine.consecutiveFailures == 0 && machine.nextAttempt == .distantPast && machine.lastFailure == nil)
    }

    @Test func duringABackoffAFreshSetStillAnswersAndAnUnknownKidIsUnknown() {
        var machine = Machine(policy: Self.policy)
        machine.fetchSucceeded(Self.set(["k1": "key-1"]))
        let later = Self.t0.addingTimeInterval(100)
        machine.fetchFailed("route down", at: later)
        #expect(machine.key(for: "k1", at: later) == .use("key-1"))
        #expect(machine.key(for: "k2", at: later) == .unknownKey)
        // An expired set during a backoff: used within the grace, but no background refresh starts.
        var expired = Machine(policy: Self.policy)
        expired.fetchSucceeded(Self.set(["k1": "key-1"]))
        expired.fetchFailed("route down", at: Self.t0.addingTimeInterval(700))
        #expect(expired.key(for: "k1", at: Self.t0.addingTimeInterval(700)) == .use("key-1"))
    }

    @Test func theGenerationMovesWhenAKeyIsDroppedOrChangedNotWhenOneIsAdded() {
        var machine = Machine(policy: Self.policy)
        machine.fetchSucceeded(Self.set(["k1": "key-1"]))
        #expect(machine.generation == 0)
        machine.fetchSucceeded(Self.set(["k1": "key-1", "k2": "key-2"]))
        #expect(machine.generation == 0)
        machine.fetchSucceeded(Self.set(["k2": "key-2"]))
        #expect(machine.generation == 1)
        machine.fetchSucceeded(Self.set(["k2": "another key under k2"]))
        #expect(machine.generation == 2)
    }

    @Test func theRefresherWaitsForTheRefreshPointOrTheBackoff() {
        var machine = Machine(policy: Self.policy)
        #expect(machine.refreshAction(at: Self.t0) == .fetch)
        machine.fetchSucceeded(Self.set(["k1": "key-1"], maxAge: 600))
        // A tenth of 600 s before expiry; for a 6000 s set, the cap of 300 s.
        #expect(machine.refreshAction(at: Self.t0) == .waitUntil(Self.t0.addingTimeInterval(540)))
        #expect(machine.refreshAction(at: Self.t0.addingTimeInterval(540)) == .fetch)
        #expect(Machine.refreshPoint(of: Self.set([:], maxAge: 6000)) == Self.t0.addingTimeInterval(5700))
        machine.fetchFailed("route down", at: Self.t0.addingTimeInterval(540))
        #expect(
            machine.refreshAction(at: Self.t0.addingTimeInterval(540)) == .waitUntil(Self.t0.addingTimeInterval(541)))
    }
}
