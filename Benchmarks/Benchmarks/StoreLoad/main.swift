// TOTP verifications per second and their latency with the shared stores:
// the in-memory stores and the PostgreSQL stores, side by side in one run,
// with N concurrent callers (each a server request verifying one code).
//
//   PGPASSWORD=… swift run -c release StoreLoad --postgres postgres://USER@HOST:PORT/DB?sslmode=disable
//                                               [--callers 64] [--seconds 10] [--connections 20] [--nio-executor] [--rate N]
//
// Without --rate each caller sends its next call when the last one is
// answered (closed loop): the stores run flat out, and the latency is
// mostly the queue of 64 callers. With --rate N the callers together send
// N calls per second on a fixed schedule (open loop, each caller every
// callers ÷ N seconds), and a call's latency runs from when it was due,
// not from when it was sent, so a stall counts against every call it
// delayed (no coordinated omission): the latency a server sees at that load.
//
// --nio-executor runs the callers' tasks on NIO's event loops (an app's
// start-up choice), so that an answer resumes its caller on the loop that read it.
//
// Each verification is the accepted path, the most expensive one. Every
// store is ExpiringStateTOTPVerificationStore on the key-value primitive
// (the package's only TOTP store since schema version 6). With separate
// stores the attempt is counted, the code checked (window 1), its step
// recorded and the count cleared: three updates of the key's entry. With
// one verification store the three are one update. An update is the
// protocol's default ("read, then swap": a read and a compare-and-swap) or,
// on PostgreSQL, the store's own ("own update": an insert unless the key
// has a row, one statement when it has none, then the swap when it has),
// both in one run. Every call verifies a new key id, so no call waits on
// another's row ("new keys"); the "live entry" runs give each caller one
// key whose last accepted step is still retained (each call is 30 s of
// TOTP time after the caller's last), the case where the own update takes
// two statements. 5 % of the calls send a wrong code. Without --postgres
// only the in-memory stores run.
import Foundation
import IdentityOTP
import IdentityServerState
import IdentityStoresPostgres
import Logging
import NIOPosix
import PostgresNIO

func option(_ flag: String, in arguments: [String]) -> String? {
    arguments.firstIndex(of: flag).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("StoreLoad: \(message)\n".utf8))
    exit(2)
}

func number(_ text: String?, default value: Int, name: String) -> Int {
    guard let text else { return value }
    guard let parsed = Int(text), parsed >= 1 else { fail("\(name) takes a number from 1, not \(text)") }
    return parsed
}

/// CPU seconds (user + system) this process has used so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

struct RunResult {
    var name: String
    var verifications: Int
    var errors: Int
    var seconds: Double
    var latencies: [Duration]
    var cpuSeconds: Double

    func percentile(_ fraction: Double) -> Duration {
        guard !latencies.isEmpty else { return .zero }
        return latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(
            format: "%.2f ms",
            Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }

    var row: String {
        let perSecond = Double(verifications) / seconds
        return
            "| \(name) | \(String(format: "%.0f", perSecond)) | \(Self.milliseconds(percentile(0.5))) | \(Self.milliseconds(percentile(0.99))) | "
            + "\(Self.milliseconds(latencies.last ?? .zero)) | \(errors) | \(String(format: "%.0f %%", 100 * cpuSeconds / seconds)) |"
    }
}

/// `callers` tasks verifying for `seconds`, each call a fresh key id.
/// What a verifier is built on.
enum Stores {
    case separate(any TOTPReplayStore, any TOTPAttemptStore)
    case combined(any TOTPVerificationStore)

    func verifier(_ totp: TOTP) throws -> TOTPVerifier {
        switch self {
        case .separate(let replay, let attempts):
            try TOTPVerifier(totp: totp, window: 1, replayStore: replay, attemptStore: attempts)
        case .combined(let store): try TOTPVerifier(totp: totp, window: 1, store: store)
        }
    }
}

/// `base` through the primitive's basic calls only, so that its updates
/// take the protocol's default (a read, then a compare-and-swap): the
/// "before" of a store's own update, measured in the same run.
struct DefaultUpdate: ExpiringStateStore {
    let base: any ExpiringStateStore

    func setValue(_ value: Data, forKey key: String, expiresAt: Date) async throws {
        try await base.setValue(value, forKey: key, expiresAt: expiresAt)
    }
    func value(forKey key: String, at now: Date) async throws -> Data? { try await base.value(forKey: key, at: now) }
    func takeValue(forKey key: String, at now: Date) async throws -> Data? {
        try await base.takeValue(forKey: key, at: now)
    }
    func removeValue(forKey key: String) async throws { try await base.removeValue(forKey: key) }
    func compareAndSwapValue(forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date, at now: Date)
        async throws -> Bool
    {
        try await base.compareAndSwapValue(
            forKey: key, expected: expected, newValue: newValue, expiresAt: expiresAt, at: now)
    }
    func storeTime(callerTime: Date) async throws -> Date { try await base.storeTime(callerTime: callerTime) }
}

/// Which key each call verifies.
enum KeyUse {
    /// A new key id per call: no record is there.
    case new
    /// One key per caller, each call 30 s of TOTP time after the caller's
    /// last, so that its last accepted step is still retained.
    case live
}

func run(_ name: String, _ stores: Stores, callers: Int, seconds: Int, rate: Int? = nil, keys: KeyUse = .new)
    async throws -> RunResult
{
    let totp = try TOTP(key: Array("12345678901234567890".utf8))
    let verifier = try stores.verifier(totp)
    let start = Int64(Date().timeIntervalSince1970)
    let run = UUID().uuidString.prefix(8)
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(seconds)
    let cpuBefore = processCPUSeconds()
    let started = clock.now
    // Open loop: each caller's calls are due every `interval`, the callers staggered.
    let interval = rate.map { Duration.seconds(Double(callers) / Double($0)) }
    let perCaller = try await withThrowingTaskGroup(of: (Int, Int, [Duration]).self) { group in
        for caller in 0..<callers {
            group.addTask {
                var latencies: [Duration] = []
                latencies.reserveCapacity(seconds * 5000)
                var (count, errors) = (0, 0)
                var due = started + (interval ?? .zero) * (Double(caller) / Double(callers))
                while (interval == nil ? clock.now : due) < deadline {
                    let (key, now) =
                        keys == .new
                        ? ("\(run)-\(caller)-\(count)", start) : ("\(run)-\(caller)", start + 30 * Int64(count))
                    let right = try totp.code(at: now)
                    let wrong = right == "000000" ? "111111" : "000000"
                    let code = count % 20 == 19 ? wrong : right
                    let begin: ContinuousClock.Instant
                    if let interval {
                        try await clock.sleep(until: due)
                        begin = due
                        due += interval
                    } else {
                        begin = clock.now
                    }
                    do {
                        let result = try await verifier.verify(code, keyID: key, at: now)
                        if code == right, case .accepted = result {
                        } else if code == wrong, result == .invalid {
                        } else {
                            errors += 1
                        }
                    } catch {
                        errors += 1
                    }
                    latencies.append(clock.now - begin)
                    count += 1
                }
                return (count, errors, latencies)
            }
        }
        var total = (0, 0, [Duration]())
        for try await (count, errors, latencies) in group {
            total.0 += count
            total.1 += errors
            total.2 += latencies
        }
        return total
    }
    let elapsed = clock.now - started
    let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return RunResult(
        name: name, verifications: perCaller.0, errors: perCaller.1, seconds: elapsedSeconds,
        latencies: perCaller.2.sorted(), cpuSeconds: processCPUSeconds() - cpuBefore)
}

let arguments = Array(CommandLine.arguments.dropFirst())
// Before the first `await`, on the main thread, as NIO requires.
let onEventLoops =
    arguments.contains("--nio-executor")
    && NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
let callers = number(option("--callers", in: arguments), default: 64, name: "--callers")
let seconds = number(option("--seconds", in: arguments), default: 10, name: "--seconds")
let connections = number(option("--connections", in: arguments), default: 20, name: "--connections")
let rate = option("--rate", in: arguments).map { number($0, default: 0, name: "--rate") }
let postgresURL = option("--postgres", in: arguments)
if let postgresURL, PostgresConnectionSettings.urlContainsPassword(postgresURL) {
    fail("put the password in PGPASSWORD, not in the URL (another local user can read a process's arguments)")
}

say(
    "StoreLoad: \(callers) callers, \(seconds) s per store, \(ProcessInfo.processInfo.activeProcessorCount) cores"
        + (onEventLoops ? ", tasks on NIO's event loops" : "")
        + (rate.map { ", \($0) calls/s offered (latency from when each call was due)" } ?? ", each caller flat out"))
var results: [RunResult] = []
// Warm-up, then the measured in-memory run.
// Every call uses a fresh key whose records live for minutes (and a wrong
// code's run for ever), and a full in-memory store refuses new keys rather
// than forget live records: room for every key a run makes.
let inMemoryCapacity = 50_000_000
_ = try await run(
    "warm-up",
    .separate(
        ExpiringStateTOTPVerificationStore(capacity: inMemoryCapacity),
        ExpiringStateTOTPVerificationStore(capacity: inMemoryCapacity)),
    callers: callers, seconds: 1)
results.append(
    try await run(
        "in-memory: replay + attempt stores",
        .separate(
            ExpiringStateTOTPVerificationStore(capacity: inMemoryCapacity),
            ExpiringStateTOTPVerificationStore(capacity: inMemoryCapacity)),
        callers: callers, seconds: seconds, rate: rate))
say(results.last!.row)
results.append(
    try await run(
        "in-memory: one verification store", .combined(ExpiringStateTOTPVerificationStore(capacity: inMemoryCapacity)),
        callers: callers, seconds: seconds, rate: rate))
say(results.last!.row)

if let postgresURL {
    var settings: PostgresConnectionSettings
    do {
        settings = try PostgresConnectionSettings(
            url: postgresURL, password: ProcessInfo.processInfo.environment["PGPASSWORD"])
        settings.maximumConnections = connections
        try await PostgresIdentityStores.checkConnection(settings)
    } catch {
        fail("\(error)")
    }
    let client = PostgresClient(
        configuration: settings.clientConfiguration, backgroundLogger: Logger(label: "StoreLoad"))
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        let stores = try PostgresIdentityStores(client: client, tablePrefix: "storeload_")
        try await stores.migrate()
        _ = try await run("warm-up", .combined(stores.verificationStore), callers: callers, seconds: 1)
        results.append(
            try await run(
                "PostgreSQL: replay + attempt stores, 3 updates (\(connections) connections)",
                .separate(stores.verificationStore, stores.verificationStore), callers: callers, seconds: seconds,
                rate: rate))
        say(results.last!.row)
        for (keys, keysLabel) in [(KeyUse.new, "new keys"), (.live, "live entry")] {
            for (label, ownUpdate) in [("read, then swap", false), ("own update", true)] {
                let state: any ExpiringStateStore =
                    ownUpdate ? stores.stateStore : DefaultUpdate(base: stores.stateStore)
                results.append(
                    try await run(
                        "PostgreSQL, \(keysLabel): one verification store (\(label))",
                        .combined(ExpiringStateTOTPVerificationStore(state: state)), callers: callers, seconds: seconds,
                        rate: rate, keys: keys))
                say(results.last!.row)
            }
        }
        let swept = try await stores.sweepExpired(now: Date().addingTimeInterval(3600))
        say("swept \(swept) rows")
        group.cancelAll()
    }
}

say("")
say("| stores | verifications/s | p50 | p99 | max | errors | CPU of this process |")
say("|---|---|---|---|---|---|---|")
for result in results { say(result.row) }
