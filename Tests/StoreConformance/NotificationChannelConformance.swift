import Foundation
import IdentityKeyValueStore
import Testing

/// The cases every ``NotificationChannel`` must pass: run by `swift test`
/// on the in-memory channel and by `.ci/run` on PostgreSQL's.
public enum NotificationChannelConformance {
    /// What a listener heard, in order.
    final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [NotificationChannelEvent] = []
        func append(_ event: NotificationChannelEvent) { lock.withLock { events.append(event) } }
        var all: [NotificationChannelEvent] { lock.withLock { events } }
        var payloads: [String] {
            all.compactMap { if case .notification(let payload) = $0 { payload } else { nil } }
        }
    }

    /// Waits up to `seconds` (generous: the suite runs in parallel) for `condition`.
    static func eventually(_ seconds: Double = 20, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Two listeners hear `listening`, then every payload in order, once;
    /// a cancelled listener hears no more; a payload past the limit is refused.
    public static func everyListenerHearsEachPayloadOnce(_ channel: some NotificationChannel) async throws {
        let first = Heard()
        let second = Heard()
        let firstListener = Task { try await channel.listen { first.append($0) } }
        let secondListener = Task { try await channel.listen { second.append($0) } }
        defer {
            firstListener.cancel()
            secondListener.cancel()
        }
        #expect(try await eventually { first.all.first == .listening && second.all.first == .listening })
        let payloads = (1...20).map { "payload \($0) \(UUID().uuidString)" }
        for payload in payloads { try await channel.publish(payload) }
        #expect(try await eventually { first.payloads.count >= 20 && second.payloads.count >= 20 })
        #expect(first.payloads == payloads && second.payloads == payloads)

        firstListener.cancel()
        _ = try? await firstListener.value
        try await channel.publish("after the cancel")
        #expect(try await eventually { second.payloads.last == "after the cancel" })
        #expect(!first.payloads.contains("after the cancel"))

        let tooLong = String(repeating: "x", count: 8_000)
        await #expect(throws: NotificationPayloadTooLong(byteCount: 8_000)) { try await channel.publish(tooLong) }
        #expect(!first.all.contains { if case .interrupted = $0 { true } else { false } })
    }
}
