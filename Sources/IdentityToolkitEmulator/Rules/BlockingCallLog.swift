#if Emulator
import Foundation
import IdentitySupport

/// The emulator's last calls to blocking functions, newest first, for its
/// page: which trigger, for whom, how it ended and how long it took. It
/// holds no event, token or claim value, and is not exported.
final class BlockingCallLog: Sendable {
    /// One call.
    struct Call: Sendable {
        /// How a call ended.
        enum Outcome: Sendable {
            /// Allowed, changing the fields named (the answer's `updateMask`).
            case allowed([String])
            /// Refused by the function, or failed: the message the client saw.
            case refused(String)
        }
        var at: Date
        var trigger: String
        var project: String
        var uid: String
        var tenant: String?
        var method: String
        var outcome: Outcome
        var duration: Duration = .zero
    }

    /// How many calls are kept.
    static let capacity = 20
    private let calls = Locked<[Call]>([])

    init() {}

    func record(_ call: Call) {
        calls.withLock { calls in
            calls.insert(call, at: 0)
            if calls.count > Self.capacity { calls.removeLast(calls.count - Self.capacity) }
        }
    }

    /// The calls kept, newest first.
    var recent: [Call] { calls.current }
}
#endif
