import Foundation
import IdentityOTP
import IdentityStoresPostgres
import Logging
import PostgresNIO
import Testing

@testable import TOTPLoginApp

/// The app's attempt limits against a stranger who knows only the owner's
/// address. The per-account password count was the second factor's final
/// lock: about 3 days of wrong passwords from one address locked the owner
/// out for good, and every record, even for addresses with no account,
/// lived until the year 4001.
@Suite struct AttemptLimitTests {
    static let quiet: Logger = {
        var logger = Logger(label: "AttemptLimitTests")
        logger.logLevel = .critical
        return logger
    }()

    /// A month of an attacker who tries wrong passwords for the owner's
    /// address as fast as the limits let them, while the owner signs in
    /// every 6 hours from their own address (resetting the password when
    /// the app asks for it): the owner never waits, and never needs more
    /// than the reset email.
    @Test(arguments: AttemptSimulation.Attacker.allCases)
    func aMonthOfAStrangerNeverKeepsTheOwnerOut(attacker: AttemptSimulation.Attacker) async throws {
        let limits = AttemptLimits(store: ExpiringStateTOTPVerificationStore(), logger: Self.quiet)
        let result = await AttemptSimulation(limits: limits, attacker: attacker).run(
            days: 30, attackerPoll: .seconds(15 * 60))
        print("in memory, \(attacker): \(result)")
        #expect(result.ownerSignIns == 120)
        // From the owner's own address: no wait at all; behind the attacker's
        // NAT, the per-address backoff's cap at most.
        #expect(result.longestOwnerWait <= (attacker == .sharedAddress ? 15 * 60 : 0), "\(result)")
        // 100 in a row at most: a run ends at an owner's sign-in or reset, or a day after its last count.
        #expect(result.countedAttackerAttempts <= 100 * (result.ownerSignIns + result.ownerResets + 31), "\(result)")
    }

    /// A month on PostgreSQL (the shared store a fleet uses), when
    /// `IDENTITY_TEST_POSTGRES_URL` names a server (.ci/run starts one).
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["IDENTITY_TEST_POSTGRES_URL"] != nil,
            "IDENTITY_TEST_POSTGRES_URL names no PostgreSQL server"))
    func aMonthOnPostgreSQL() async throws {
        let environment = ProcessInfo.processInfo.environment
        let settings = try PostgresConnectionSettings(
            url: try #require(environment["IDENTITY_TEST_POSTGRES_URL"]), password: environment["PGPASSWORD"])
        let client = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: Self.quiet)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            let prefix = "sim\(UUID().uuidString.prefix(8).lowercased())_"
            let stores = try PostgresIdentityStores(client: client, tablePrefix: prefix, clock: .caller)
            try await stores.migrate()
            // One attacker, the owner daily: each admission is a few round
            // trips, and the 6-hourly month of the in-memory case took 330 s here.
            let limits = AttemptLimits(store: stores.verificationStore, logger: Self.quiet)
            let result = await AttemptSimulation(limits: limits, attacker: .oneAddress).run(
                days: 30, ownerEvery: .seconds(86_400), attackerPoll: .seconds(3600))
            print("PostgreSQL, \(AttemptSimulation.Attacker.oneAddress), the owner daily: \(result)")
            #expect(result.ownerSignIns == 30 && result.longestOwnerWait == 0 && !result.storeFailed, "\(result)")
            group.cancelAll()
        }
    }

    /// Wrong passwords for addresses with no account fill a bounded store
    /// with records that expire: once they have, sign-ins are counted again.
    /// They never did (year 4001), so a full in-memory store answered 503
    /// to every new sign-in for good.
    @Test func recordsForTypedAddressesExpire() async throws {
        let store = ExpiringStateTOTPVerificationStore(capacity: 300)
        let limits = AttemptLimits(store: store, logger: Self.quiet)
        let start = Date()
        var refusedForSpace = 0
        for index in 0..<400 {
            let account = AttemptLimits.accountKey(email: "nobody-\(index)@example.com")
            if await limits.admit(.password, account: account, address: "203.0.113.\(index % 50)", at: start)
                == .refused(.unavailable)
            {
                refusedForSpace += 1
            }
        }
        #expect(refusedForSpace > 0, "the store filled up")
        let record = try #require(
            try await store.attempts(
                for: "totplogin/password/account/\(AttemptLimits.accountKey(email: "nobody-0@example.com"))", at: start)
        )
        #expect(record.forgetAt <= start.addingTimeInterval(86_400 + 60), "forgotten a day after: \(record.forgetAt)")
        let owner = AttemptLimits.accountKey(email: "owner@example.com")
        #expect(
            await limits.admit(
                .password, account: owner, address: "198.51.100.1", at: start.addingTimeInterval(86_400 + 120))
                == .admitted)
    }

    /// A recovery proves the account: every count of it starts again,
    /// the codes' final lock included (the new authenticator was refused).
    @Test func aRecoveryClearsEveryCountOfTheAccount() async throws {
        let limits = AttemptLimits(store: ExpiringStateTOTPVerificationStore(), logger: Self.quiet)
        let account = AttemptLimits.accountKey(email: "recovering@example.com")
        var now = Date()
        var counted = 0
        while counted < 100 {
            switch await limits.admit(.code, account: account, address: "198.51.100.1", at: now) {
            case .admitted: counted += 1
            case .refused(.until(let until)): now = until
            case .refused(let other):
                Issue.record("\(other) after \(counted)")
                return
            }
        }
        #expect(
            await limits.admit(
                .code, account: account, address: "198.51.100.1", at: now.addingTimeInterval(400 * 86_400))
                == .refused(.untilProven))
        await limits.accountProven(account, address: "198.51.100.1")
        #expect(
            await limits.admit(
                .code, account: account, address: "198.51.100.1", at: now.addingTimeInterval(400 * 86_400)) == .admitted
        )
    }
}

/// A stranger's wrong passwords and the owner's sign-ins on one account,
/// in simulated time, through ``AttemptLimits`` and its store.
struct AttemptSimulation {
    enum Attacker: String, CaseIterable, CustomStringConvertible {
        /// One address of their own.
        case oneAddress
        /// A thousand addresses (a botnet).
        case manyAddresses
        /// The owner's own address (a shared NAT).
        case sharedAddress

        var description: String { rawValue }
    }

    struct Result: CustomStringConvertible {
        var ownerSignIns = 0
        var ownerResets = 0
        var longestOwnerWait: TimeInterval = 0
        var countedAttackerAttempts = 0
        var refusedAttackerAttempts = 0
        var storeFailed = false

        var description: String {
            "owner signed in \(ownerSignIns) times, longest wait \(Int(longestOwnerWait)) s, \(ownerResets) password resets; "
                + "attacker: \(countedAttackerAttempts) wrong passwords counted, \(refusedAttackerAttempts) refused"
        }
    }

    let limits: AttemptLimits
    let attacker: Attacker
    var account = AttemptLimits.accountKey(email: "owner@example.com")
    let ownerAddress = "198.51.100.1"

    func run(days: Int, ownerEvery: Duration = .seconds(6 * 3600), attackerPoll: Duration) async -> Result {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let end = start.addingTimeInterval(TimeInterval(days * 86_400))
        let addresses: [String] =
            switch attacker {
            case .oneAddress: ["203.0.113.7"]
            case .manyAddresses: (0..<1000).map { "10.\($0 / 250).\($0 % 250).1" }
            case .sharedAddress: [ownerAddress]
            }
        var readyAt = Dictionary(uniqueKeysWithValues: addresses.map { ($0, start) })
        var attackerNext = start
        var ownerNext = start.addingTimeInterval(3600)
        var result = Result()
        while min(attackerNext, ownerNext) < end {
            if ownerNext <= attackerNext {
                // The owner, from their own address, with the right password.
                let wanted = ownerNext
                var now = wanted
                while true {
                    switch await limits.admit(.password, account: account, address: ownerAddress, at: now) {
                    case .admitted:
                        await limits.succeeded(.password, account: account, address: ownerAddress)
                    case .refused(.until(let until)):
                        now = until
                        continue
                    case .refused(.untilProven):
                        // The app asks for a reset; the owner does it at once.
                        result.ownerResets += 1
                        await limits.accountProven(account, address: ownerAddress)
                        continue
                    case .refused(.unavailable):
                        result.storeFailed = true
                    }
                    break
                }
                result.ownerSignIns += 1
                result.longestOwnerWait = max(result.longestOwnerWait, now.timeIntervalSince(wanted))
                ownerNext = wanted.addingTimeInterval(ownerEvery.timeInterval)
            } else {
                // The attacker, from whichever address is ready first.
                let address = readyAt.min { $0.value < $1.value }!.key
                let now = max(attackerNext, readyAt[address]!)
                switch await limits.admit(.password, account: account, address: address, at: now) {
                case .admitted:
                    result.countedAttackerAttempts += 1
                    attackerNext = now.addingTimeInterval(1)
                case .refused(.until(let until)):
                    result.refusedAttackerAttempts += 1
                    readyAt[address] = until
                    attackerNext = now.addingTimeInterval(1)
                case .refused(.untilProven):
                    result.refusedAttackerAttempts += 1
                    attackerNext = now.addingTimeInterval(attackerPoll.timeInterval)
                case .refused(.unavailable):
                    result.storeFailed = true
                    attackerNext = now.addingTimeInterval(attackerPoll.timeInterval)
                }
            }
        }
        return result
    }
}

extension Duration {
    var timeInterval: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
