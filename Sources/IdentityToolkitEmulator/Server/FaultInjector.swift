#if Emulator
import Foundation
import HTTPTypes
import Hummingbird
import IdentitySupport
import IdentityToolkit

/// Faults the emulator injects into its emulated APIs' operations, so that a
/// team can test what its servers do when Google is slow or down: set by
/// `--fault` and by the `setFaults` helper (cleared by `clearFaults`),
/// listed on the page. At most one fault per operation, `*` for every
/// operation without one of its own; the helpers and the page are never
/// faulted, so a test can always clear what it set.
final class FaultInjector: Sendable {
    /// The most faults in force at once.
    static let maximumFaults = 100
    /// `latency`'s delay, in milliseconds.
    static let latencyRange: ClosedRange<Int32> = 1...60_000
    /// `hang`'s wait before its 503, in milliseconds (ten minutes by default).
    static let hangRange: ClosedRange<Int32> = 1...600_000
    /// How many requests a fault may be set to answer.
    static let remainingRange: ClosedRange<Int32> = 1...1_000_000
    /// The operation name that stands for every faultable operation.
    static let everyOperation = "*"
    /// The `Cache-Control` of `malformedCacheControl`: no number a cache can read.
    static let malformedCacheControl = "max-age=soon"

    private let faults = Locked<[EmulatorFault]>([])
    /// The operations a fault may name (those of the emulated APIs).
    private let operations: Locked<Set<String>> = Locked([])

    /// Whether the route `template` serves an emulated API (not a helper or the page).
    static func isFaultable(template: String) -> Bool {
        template != "/" && !template.hasPrefix("/emulator")
    }

    /// Records `operationID` as one a fault may name.
    func allow(_ operationID: String) {
        operations.withLock { _ = $0.insert(operationID) }
    }

    /// The faults in force, in the order they were set.
    var current: EmulatorFaults { EmulatorFaults(faults: faults.current) }

    /// Replaces the faults, after checking every one: a known operation (or
    /// `*`) named once, a known kind, a delay in range where the kind takes
    /// one and none where it does not.
    func replace(with new: [EmulatorFault]) throws {
        guard new.count <= Self.maximumFaults else {
            throw APIServerError.invalidArgument("at most \(Self.maximumFaults) faults")
        }
        let known = operations.current
        var named = Set<String>()
        for fault in new {
            let operation = LogSafeText.escaping(fault.operation, limit: 80)
            guard fault.operation == Self.everyOperation || known.contains(fault.operation) else {
                throw APIServerError.invalidArgument(
                    "no operation '\(operation)' to fault (an operation id of the emulated APIs, or '*')")
            }
            guard named.insert(fault.operation).inserted else {
                throw APIServerError.invalidArgument("'\(operation)' has two faults")
            }
            guard EmulatorFaultKind.allKnownValues.contains(fault.kind) else {
                throw APIServerError.invalidArgument(
                    "unknown fault kind '\(LogSafeText.escaping(fault.kind.rawValue, limit: 40))'")
            }
            switch fault.kind {
            case .latency:
                guard let delay = fault.delayMillis, Self.latencyRange.contains(delay) else {
                    throw APIServerError.invalidArgument(
                        "latency needs delayMillis from \(Self.latencyRange.lowerBound) to \(Self.latencyRange.upperBound)"
                    )
                }
            case .hang:
                if let delay = fault.delayMillis, !Self.hangRange.contains(delay) {
                    throw APIServerError.invalidArgument(
                        "hang's delayMillis is from \(Self.hangRange.lowerBound) to \(Self.hangRange.upperBound)")
                }
            default:
                guard fault.delayMillis == nil else {
                    throw APIServerError.invalidArgument("\(fault.kind.rawValue) takes no delayMillis")
                }
            }
            if let remaining = fault.remaining, !Self.remainingRange.contains(remaining) {
                throw APIServerError.invalidArgument(
                    "remaining is from \(Self.remainingRange.lowerBound) to \(Self.remainingRange.upperBound)")
            }
        }
        faults.withLock { $0 = new }
    }

    /// Clears every fault.
    func clear() {
        faults.withLock { $0 = [] }
    }

    /// The fault `operationID` answers with now (its own, else `*`'s), one
    /// of its `remaining` spent; a fault whose count is spent is removed.
    func take(for operationID: String) -> EmulatorFault? {
        faults.withLock { faults in
            guard
                let index = faults.firstIndex(where: { $0.operation == operationID })
                    ?? faults.firstIndex(where: { $0.operation == Self.everyOperation })
            else { return nil }
            let fault = faults[index]
            if let remaining = fault.remaining {
                if remaining <= 1 { faults.remove(at: index) } else { faults[index].remaining = remaining - 1 }
            }
            return fault
        }
    }

    /// What a request gets from `fault`: nil to go on to the route (after
    /// a `latency` delay), the answer in its place, or the error it answers
    /// with (in the route's error body).
    static func apply(_ fault: EmulatorFault) async throws -> Response? {
        switch fault.kind {
        case .latency:
            try? await Task.sleep(for: .milliseconds(Int64(fault.delayMillis ?? 0)))
            return nil
        case .quotaExceeded:
            throw APIServerError.quotaExceeded("the emulator's fault for this operation").with(
                status: 429, reason: "rateLimitExceeded")
        case .unavailable:
            throw APIServerError.unavailable("the emulator's fault for this operation")
        case .hang:
            try? await Task.sleep(for: .milliseconds(Int64(fault.delayMillis ?? hangRange.upperBound)))
            throw APIServerError.unavailable("the emulator's fault for this operation: no answer until now")
        case .dropConnection:
            // Headers promise a body that never comes: the writer throws, and
            // the server closes the connection mid-answer.
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(contentLength: 64) { _ in throw DroppedByFault() })
        default:
            // malformedCacheControl: the route answers; the header is changed after.
            return nil
        }
    }

    /// What `dropConnection`'s body writer throws.
    struct DroppedByFault: Error {}
}
#endif
