import Foundation
import IdentityServerState
import MultiFactorAuth
import Testing

/// The cases every ``ExpiringStateStore`` and ``AuthSessionStore`` must
/// pass: run by `swift test` on the in-memory stores and by `.ci/run` on
/// the PostgreSQL ones.
public enum StateStoreConformance {
    /// Values are kept until their expiry, replaced by a later set,
    /// removed on request; keys are independent.
    public static func keepsValuesUntilTheyExpire(_ store: any ExpiringStateStore) async throws {
        let now = Date()
        let (a, b) = (TOTPStoreConformance.freshKey("state-a"), TOTPStoreConformance.freshKey("state-b"))
        #expect(try await store.value(forKey: a, at: now) == nil)
        try await store.setValue(Data("first".utf8), forKey: a, expiresAt: now.addingTimeInterval(60))
        try await store.setValue(Data([0, 255, 1]), forKey: b, expiresAt: now.addingTimeInterval(60))
        #expect(try await store.value(forKey: a, at: now) == Data("first".utf8))
        #expect(try await store.value(forKey: b, at: now) == Data([0, 255, 1]))
        try await store.setValue(Data("second".utf8), forKey: a, expiresAt: now.addingTimeInterval(120))
        #expect(try await store.value(forKey: a, at: now.addingTimeInterval(90)) == Data("second".utf8))
        #expect(try await store.value(forKey: a, at: now.addingTimeInterval(121)) == nil)
        try await store.removeValue(forKey: b)
        #expect(try await store.value(forKey: b, at: now) == nil)
        // Removing what is not there is not an error.
        try await store.removeValue(forKey: TOTPStoreConformance.freshKey("absent"))
        // Codable values through the typed helpers.
        let snapshot = ["hint": "totp", "tenant": "t1"]
        try await store.set(snapshot, forKey: a, expiresAt: now.addingTimeInterval(60))
        #expect(try await store.get([String: String].self, forKey: a, at: now) == snapshot)
    }

    /// A take returns the value once: of 50 concurrent takers exactly one
    /// gets it; an expired value is not returned.
    public static func aValueIsTakenOnce(_ store: any ExpiringStateStore) async throws {
        let now = Date()
        let key = TOTPStoreConformance.freshKey("take")
        try await store.setValue(Data("once".utf8), forKey: key, expiresAt: now.addingTimeInterval(60))
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 { group.addTask { try await store.takeValue(forKey: key, at: now) != nil } }
            var count = 0
            for try await won in group where won { count += 1 }
            return count
        }
        #expect(winners == 1)
        #expect(try await store.value(forKey: key, at: now) == nil)
        try await store.setValue(Data("late".utf8), forKey: key, expiresAt: now.addingTimeInterval(10))
        #expect(try await store.takeValue(forKey: key, at: now.addingTimeInterval(11)) == nil)
    }

    /// A swap happens only from the value read: from none onto an absent or
    /// expired entry, from the live bytes onto new ones or none; and 40
    /// concurrent read-modify-writes of one counter (``ExpiringStateStore/updateValue(forKey:at:maxAttempts:_:)``)
    /// lose no increment.
    public static func swapsOnlyFromTheValueRead(_ store: any ExpiringStateStore) async throws {
        let now = Date()
        let key = TOTPStoreConformance.freshKey("swap")
        let later = now.addingTimeInterval(60)
        #expect(
            try await store.compareAndSwapValue(forKey: key, expected: nil, newValue: nil, expiresAt: later, at: now))
        #expect(
            try await store.compareAndSwapValue(
                forKey: key, expected: nil, newValue: Data("one".utf8), expiresAt: later, at: now))
        #expect(
            try await !store.compareAndSwapValue(
                forKey: key, expected: nil, newValue: Data("other".utf8), expiresAt: later, at: now))
        #expect(
            try await !store.compareAndSwapValue(forKey: key, expected: nil, newValue: nil, expiresAt: later, at: now))
        #expect(
            try await !store.compareAndSwapValue(
                forKey: key, expected: Data("two".utf8), newValue: Data("three".utf8), expiresAt: later, at: now))
        #expect(try await store.value(forKey: key, at: now) == Data("one".utf8))
        #expect(
            try await store.compareAndSwapValue(
                forKey: key, expected: Data("one".utf8), newValue: Data("two".utf8), expiresAt: later, at: now))
        #expect(try await store.value(forKey: key, at: now) == Data("two".utf8))
        // Past its expiry the value is none: a swap from it fails, one from none succeeds.
        let afterExpiry = later.addingTimeInterval(1)
        #expect(
            try await !store.compareAndSwapValue(
                forKey: key, expected: Data("two".utf8), newValue: Data("x".utf8),
                expiresAt: afterExpiry.addingTimeInterval(60), at: afterExpiry))
        #expect(
            try await store.compareAndSwapValue(
                forKey: key, expected: nil, newValue: Data("fresh".utf8), expiresAt: afterExpiry.addingTimeInterval(60),
                at: afterExpiry))
        #expect(try await store.value(forKey: key, at: afterExpiry) == Data("fresh".utf8))
        #expect(
            try await store.compareAndSwapValue(
                forKey: key, expected: Data("fresh".utf8), newValue: nil, expiresAt: afterExpiry, at: afterExpiry))
        #expect(try await store.value(forKey: key, at: afterExpiry) == nil)

        let counter = TOTPStoreConformance.freshKey("counter")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await store.updateValue(forKey: counter, at: now, maxAttempts: 1000) { stored in
                        let count = stored.map { Int(String(decoding: $0, as: UTF8.self)) ?? 0 } ?? 0
                        return .store(Data(String(count + 1).utf8), expiresAt: later, result: ())
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.value(forKey: counter, at: now) == Data("40".utf8))
    }

    /// An update decides on the live value: none for an absent or expired
    /// entry, the entry itself when live (never a guess of none, which a
    /// store may try first), whether the decision for it is a store or a
    /// keep; and of 40 concurrent "create unless there" updates of one key
    /// exactly one creates, the others read what it created.
    public static func updatesDecideOnTheLiveValue(_ store: any ExpiringStateStore) async throws {
        let now = Date()
        let later = now.addingTimeInterval(60)
        let key = TOTPStoreConformance.freshKey("update")
        func increment(at time: Date) async throws -> Int {
            try await store.updateValue(forKey: key, at: time) { stored in
                let next = (stored.map { Int(String(decoding: $0, as: UTF8.self)) ?? -100 } ?? 0) + 1
                return .store(Data(String(next).utf8), expiresAt: later, result: next)
            }
        }
        #expect(try await increment(at: now) == 1)
        #expect(try await increment(at: now) == 2)
        #expect(try await store.value(forKey: key, at: now) == Data("2".utf8))
        // Past its expiry the entry is none again.
        #expect(try await increment(at: later.addingTimeInterval(1)) == 1)

        // Create unless there: a store for none, a keep (answering the live value) otherwise.
        let once = TOTPStoreConformance.freshKey("create-once")
        @Sendable func createUnlessThere(_ value: String) async throws -> String {
            try await store.updateValue(forKey: once, at: now) { stored in
                if let stored { return .keep(result: String(decoding: stored, as: UTF8.self)) }
                return .store(Data(value.utf8), expiresAt: later, result: value)
            }
        }
        let answers = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for index in 0..<40 {
                group.addTask { ("writer-\(index)", try await createUnlessThere("writer-\(index)")) }
            }
            var answers: [(String, String)] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
        let kept = String(decoding: try #require(try await store.value(forKey: once, at: now)), as: UTF8.self)
        #expect(answers.allSatisfy { $0.1 == kept })
        #expect(answers.filter { $0.0 == $0.1 }.count == 1)

        // A keep for none is taken on the live value too.
        let peek = try await store.updateValue(forKey: once, at: now) { stored in
            ExpiringStateUpdate.keep(result: stored)
        }
        #expect(peek.map { String(decoding: $0, as: UTF8.self) } == kept)
        // A removal of a live entry removes it; of an absent one changes nothing.
        #expect(
            try await store.updateValue(forKey: once, at: now) { stored in
                ExpiringStateUpdate.remove(result: stored != nil)
            })
        #expect(try await store.value(forKey: once, at: now) == nil)
        #expect(
            try await !store.updateValue(forKey: once, at: now) { stored in
                ExpiringStateUpdate.remove(result: stored != nil)
            })
    }

    /// Sessions saved under a key come back whole; removal forgets them;
    /// scopes keep browsers apart in one store.
    public static func keepsAuthSessions(_ store: any AuthSessionStore) async throws {
        let session = AuthSession(
            uid: "uid-\(UUID().uuidString)", email: "a@example.com", displayName: "Ada", isEmailVerified: true,
            isAnonymous: false, tenantID: "tenant-1", idToken: "id.token.value", refreshToken: "refresh-token",
            idTokenExpiration: Date(timeIntervalSince1970: 1_900_000_000),
            factors: [
                AuthSession.Factor(
                    uid: "f1", displayName: "phone", enrollmentDate: Date(timeIntervalSince1970: 1_800_000_000),
                    factorID: "totp", phoneNumber: nil)
            ])
        let key = TOTPStoreConformance.freshKey("app") + "/"
        #expect(try await store.load(key: key) == nil)
        try await store.save(session, key: key)
        #expect(try await store.load(key: key) == session)
        var changed = session
        changed.idToken = "a.newer.token"
        try await store.save(changed, key: key)
        #expect(try await store.load(key: key) == changed)
        let (browserA, browserB) = (
            store.scoped(to: TOTPStoreConformance.freshKey("browser")),
            store.scoped(to: TOTPStoreConformance.freshKey("browser"))
        )
        try await browserA.save(session, key: key)
        #expect(try await browserB.load(key: key) == nil)
        #expect(try await browserA.load(key: key) == session)
        try await store.remove(key: key)
        #expect(try await store.load(key: key) == nil)
        #expect(try await browserA.load(key: key) == session)
    }
}
