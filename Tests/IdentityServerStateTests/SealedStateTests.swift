import Foundation
import IdentityServerState
import MultiFactorAuth
import StoreConformance
import Testing

@Suite struct SealedStateTests {
    struct Pending: Codable, Equatable {
        var resolver: String
        var attempts: Int
    }

    static func ring(_ ids: String...) throws -> SealingKeyRing {
        try SealingKeyRing(ids.map { try SealingKey.random(id: $0) })
    }

    static func expectError(
        _ code: SealedStateError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("expected \(code), but it succeeded", sourceLocation: sourceLocation)
        } catch let error as SealedStateError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected SealedStateError \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aSealedValueOpensOnAnyInstanceWithTheKeys() throws {
        let keys = try Self.ring("k1")
        let value = Pending(resolver: "pending-credential", attempts: 2)
        let sealed = try SealedStateCodec(keyRing: keys, purpose: "login").seal(
            value, expiresAt: Date().addingTimeInterval(60))
        #expect(sealed.hasPrefix("s1.k1."))
        #expect(!sealed.contains("pending-credential"))
        // A cookie-safe alphabet: base64url and dots.
        #expect(sealed.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) })
        // Another codec (another instance) with the same keys opens it.
        #expect(try SealedStateCodec(keyRing: keys, purpose: "login").open(Pending.self, from: sealed) == value)
        // Sealing twice gives different text (a fresh nonce each time).
        #expect(try SealedStateCodec(keyRing: keys, purpose: "login").seal(value, expiresAt: nil) != sealed)
    }

    @Test func anyChangeToTheSealedTextIsRefused() throws {
        let codec = SealedStateCodec(keyRing: try Self.ring("k1"), purpose: "login")
        let sealed = try codec.seal(Pending(resolver: "x", attempts: 0), expiresAt: nil)
        let bodyStart = sealed.index(sealed.startIndex, offsetBy: "s1.k1.".count)
        var refused = 0
        for offset in 0..<sealed.distance(from: bodyStart, to: sealed.endIndex) {
            var characters = Array(sealed)
            let index = "s1.k1.".count + offset
            characters[index] = characters[index] == "A" ? "B" : "A"
            let result = Result { () throws(SealedStateError) in try codec.open(Pending.self, from: String(characters))
            }
            switch result {
            case .success: Issue.record("a changed character at \(offset) still opened")
            case .failure(let error):
                #expect([.authenticationFailed, .malformed].contains(error.code))
                refused += 1
            }
        }
        #expect(refused > 40)
        Self.expectError(.malformed) { _ = try codec.open(Pending.self, from: String(sealed.dropLast(10))) }
    }

    @Test func aValueOpensOnlyForItsPurposeAndBinding() throws {
        let keys = try Self.ring("k1")
        let login = SealedStateCodec(keyRing: keys, purpose: "login")
        let sealed = try login.seal(Pending(resolver: "r", attempts: 1), expiresAt: nil, boundTo: "user-1")
        #expect(try login.open(Pending.self, from: sealed, boundTo: "user-1").resolver == "r")
        Self.expectError(.authenticationFailed) { _ = try login.open(Pending.self, from: sealed, boundTo: "user-2") }
        Self.expectError(.authenticationFailed) { _ = try login.open(Pending.self, from: sealed) }
        Self.expectError(.authenticationFailed) {
            _ = try SealedStateCodec(keyRing: keys, purpose: "enrollment").open(
                Pending.self, from: sealed, boundTo: "user-1")
        }
        // Length prefixes: purpose "ab" + binding "c" is not purpose "a" + binding "bc".
        let ab = try SealedStateCodec(keyRing: keys, purpose: "ab").seal("v", expiresAt: nil, boundTo: "c")
        Self.expectError(.authenticationFailed) {
            _ = try SealedStateCodec(keyRing: keys, purpose: "a").open(String.self, from: ab, boundTo: "bc")
        }
    }

    @Test func expiryIsEnforcedAfterAuthentication() throws {
        let codec = SealedStateCodec(keyRing: try Self.ring("k1"), purpose: "login")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let sealed = try codec.seal("pending", expiresAt: now.addingTimeInterval(300))
        #expect(try codec.open(String.self, from: sealed, now: now.addingTimeInterval(299)) == "pending")
        Self.expectError(.expired) { _ = try codec.open(String.self, from: sealed, now: now.addingTimeInterval(301)) }
        let forever = try codec.seal("at rest", expiresAt: nil)
        #expect(try codec.open(String.self, from: forever, now: .distantFuture) == "at rest")
    }

    @Test func keysRotateWithoutSigningAnyoneOut() throws {
        let old = try SealingKey.random(id: "2026-08")
        let new = try SealingKey.random(id: "2026-11")
        let before = SealedStateCodec(keyRing: try SealingKeyRing([old]), purpose: "p")
        let sealedBefore = try before.seal("state", expiresAt: nil)
        let during = SealedStateCodec(keyRing: try SealingKeyRing([new, old]), purpose: "p")
        #expect(try during.open(String.self, from: sealedBefore) == "state")
        #expect(during.needsResealing(sealedBefore))
        let resealed = try during.seal(try during.open(String.self, from: sealedBefore), expiresAt: nil)
        #expect(resealed.hasPrefix("s1.2026-11."))
        #expect(!during.needsResealing(resealed))
        let after = SealedStateCodec(keyRing: try SealingKeyRing([new]), purpose: "p")
        #expect(try after.open(String.self, from: resealed) == "state")
        do {
            _ = try after.open(String.self, from: sealedBefore)
            Issue.record("a value sealed with a dropped key opened")
        } catch {
            #expect(error.code == .unknownKey)
            #expect(error.keyID == "2026-08")
            #expect(error.description.contains("2026-08"))
        }
        // A key with the same id but other bytes (another deployment's) does not open it.
        let impostor = SealedStateCodec(
            keyRing: try SealingKeyRing([try SealingKey.random(id: "2026-08")]), purpose: "p")
        Self.expectError(.authenticationFailed) { _ = try impostor.open(String.self, from: sealedBefore) }
    }

    @Test func malformedTextIsRefusedUnread() throws {
        let codec = SealedStateCodec(keyRing: try Self.ring("k1"), purpose: "p")
        for text in [
            "", "s1", "s1.k1", "s1.k1.", "s2.k1.AAAA", "s1.k 1.AAAA", "s1.k1.!!!!", "s1.k1.AAAA", "s1..AAAA",
            "s1.k1." + String(repeating: "A", count: SealedStateCodec.maximumSealedLength),
        ] {
            Self.expectError(.malformed) { _ = try codec.openData(text) }
        }
        Self.expectError(.unknownKey) { _ = try codec.openData("s1.other." + String(repeating: "A", count: 64)) }
        // Authentic, but another type.
        let sealed = try codec.seal(["a": 1], expiresAt: nil)
        Self.expectError(.undecodable) { _ = try codec.open(Pending.self, from: sealed) }
    }

    @Test func keyRingsComeFromConfiguration() throws {
        let text =
            "2026-11:\(Data(repeating: 7, count: 32).base64EncodedString()), 2026-08:\(Data(repeating: 9, count: 32).base64EncodedString())"
        let ring = try SealingKeyRing(configuration: text)
        #expect(ring.keys.map(\.id) == ["2026-11", "2026-08"])
        #expect(ring.newest.id == "2026-11")
        // base64url without padding is read too.
        let urlForm = Data(repeating: 0xFB, count: 32).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=", with: "")
        #expect(try SealingKeyRing(configuration: "k:\(urlForm)").keys.count == 1)
        #expect(try SealingKeyRing(environmentVariable: "RING", environment: ["RING": text])?.keys.count == 2)
        #expect(try SealingKeyRing(environmentVariable: "RING", environment: [:]) == nil)

        let secretMaterial = Data(repeating: 5, count: 16).base64EncodedString()
        let bad: [(String, SealedStateError.Code)] = [
            ("", .invalidKeyRing), ("no-colon", .invalidKeyRing), ("k:\(secretMaterial)", .invalidKey),
            ("k:!!notbase64!!", .invalidKey),
            ("bad.id:\(Data(count: 32).base64EncodedString())", .invalidKey),
            ("k:\(Data(count: 32).base64EncodedString()),k:\(Data(count: 32).base64EncodedString())", .invalidKeyRing),
            ("\(String(repeating: "x", count: 33)):\(Data(count: 32).base64EncodedString())", .invalidKey),
        ]
        for (configuration, code) in bad {
            do {
                _ = try SealingKeyRing(configuration: configuration)
                Issue.record("accepted '\(configuration)'")
            } catch {
                #expect(error.code == code, "\(configuration): \(error)")
                #expect(!error.description.contains(secretMaterial))
            }
        }
    }

    @Test func noRenderingShowsAKey() throws {
        let key = try SealingKey(id: "k1", bytes: Data(repeating: 0x41, count: 32))
        let material = Data(repeating: 0x41, count: 32).base64EncodedString()
        let ring = try SealingKeyRing([key])
        let codec = SealedStateCodec(keyRing: ring, purpose: "p")
        for value in [key as Any, ring, codec] {
            var dumped = ""
            dump(value, to: &dumped)
            for text in [String(describing: value), String(reflecting: value), dumped] {
                #expect(!text.contains(material) && !text.contains("AAAAAAAA") && !text.contains("65, 65"), "\(text)")
            }
        }
    }
}

@Suite struct InMemoryStateStoreTests {
    @Test func expiringStateStore() async throws {
        try await StateStoreConformance.keepsValuesUntilTheyExpire(InMemoryExpiringStateStore())
        try await StateStoreConformance.aValueIsTakenOnce(InMemoryExpiringStateStore())
        try await StateStoreConformance.swapsOnlyFromTheValueRead(InMemoryExpiringStateStore())
        try await StateStoreConformance.updatesDecideOnTheLiveValue(InMemoryExpiringStateStore())
    }

    @Test func sealingStateStore() async throws {
        let base = InMemoryExpiringStateStore()
        let codec = SealedStateCodec(keyRing: try SealingKeyRing([try SealingKey.random(id: "k1")]), purpose: "state")
        let sealing = SealingStateStore(base: base, codec: codec)
        try await StateStoreConformance.keepsValuesUntilTheyExpire(sealing)
        try await StateStoreConformance.aValueIsTakenOnce(sealing)
        try await StateStoreConformance.swapsOnlyFromTheValueRead(sealing)
        try await StateStoreConformance.updatesDecideOnTheLiveValue(sealing)
        // The base holds ciphertext, bound to its key: moved to another key,
        // it does not open, and the read fails (by default) or reads as absent.
        let now = Date()
        try await sealing.setValue(Data("pending-credential".utf8), forKey: "a", expiresAt: now.addingTimeInterval(60))
        let stored = try #require(await base.value(forKey: "a", at: now))
        #expect(!String(decoding: stored, as: UTF8.self).contains("pending-credential"))
        try await base.setValue(stored, forKey: "b", expiresAt: now.addingTimeInterval(60))
        await #expect(throws: SealedStateError.self) { try await sealing.value(forKey: "b", at: now) }
        #expect(
            try await SealingStateStore(base: base, codec: codec, unopenable: .readAsAbsent).value(forKey: "b", at: now)
                == nil)
        #expect(try await sealing.value(forKey: "a", at: now) == Data("pending-credential".utf8))
    }

    /// An update through the sealing store reads its base once per
    /// attempt (the default update read it again inside the swap, to find
    /// the sealed bytes of the opened value), gives `decide` the opened
    /// value, and keeps only sealed bytes.
    @Test func anUpdateThroughTheSealingStoreReadsItsBaseOnce() async throws {
        let base = CountingStateStore(base: InMemoryExpiringStateStore())
        let codec = SealedStateCodec(keyRing: try SealingKeyRing([try SealingKey.random(id: "k1")]), purpose: "state")
        let sealing = SealingStateStore(base: base, codec: codec)
        let now = Date()
        let first = try await sealing.updateValue(forKey: "count", at: now) { stored in
            #expect(stored == nil)
            return ExpiringStateUpdate.store(Data("1".utf8), expiresAt: now.addingTimeInterval(60), result: 1)
        }
        #expect(first == 1)
        for expected in 2...4 {
            let count = try await sealing.updateValue(forKey: "count", at: now) { stored in
                let previous = Int(String(decoding: try #require(stored), as: UTF8.self)) ?? -1
                return .store(
                    Data(String(previous + 1).utf8), expiresAt: now.addingTimeInterval(60), result: previous + 1)
            }
            #expect(count == expected)
        }
        #expect(await base.counts == CountingStateStore.Counts(reads: 4, swaps: 4))
        let stored = try #require(await base.base.value(forKey: "count", at: now))
        #expect(String(decoding: stored, as: UTF8.self) != "4")
        #expect(try await sealing.value(forKey: "count", at: now) == Data("4".utf8))
        // A removal swaps the sealed bytes read for none.
        let removed = try await sealing.updateValue(forKey: "count", at: now) { _ in
            ExpiringStateUpdate<Bool>.remove(result: true)
        }
        #expect(removed)
        #expect(try await base.base.value(forKey: "count", at: now) == nil)
        #expect(await base.counts == CountingStateStore.Counts(reads: 6, swaps: 5))
    }

    @Test func boundedInMemory() async throws {
        let store = InMemoryExpiringStateStore(capacity: 100)
        let now = Date()
        for index in 0..<1000 {
            try await store.setValue(
                Data([1]), forKey: "k\(index)", expiresAt: now.addingTimeInterval(Double(60 + index)))
        }
        #expect(await store.count <= 100)
        #expect(await store.value(forKey: "k999", at: now) != nil)
    }

    @Test func authSessionStores() async throws {
        try await StateStoreConformance.keepsAuthSessions(ExpiringStateAuthSessionStore())
        try await StateStoreConformance.keepsAuthSessions(
            ExpiringStateAuthSessionStore(state: InMemoryExpiringStateStore()))
        let codec = SealedStateCodec(
            keyRing: try SealingKeyRing([try SealingKey.random(id: "k1")]), purpose: "sessions")
        try await StateStoreConformance.keepsAuthSessions(
            ExpiringStateAuthSessionStore(state: SealingStateStore(base: InMemoryExpiringStateStore(), codec: codec)))
    }

    /// A session lasts its lifetime after each save, under the key prefix
    /// earlier releases wrote (so their rows still load), sealed at rest
    /// when the state store seals.
    @Test func sessionsInAnExpiringStoreLastTheirLifetime() async throws {
        let base = InMemoryExpiringStateStore()
        let codec = SealedStateCodec(
            keyRing: try SealingKeyRing([try SealingKey.random(id: "k1")]), purpose: "sessions")
        let sessions = ExpiringStateAuthSessionStore(
            state: SealingStateStore(base: base, codec: codec), lifetime: .seconds(600))
        let session = AuthSession(
            uid: "u", email: nil, displayName: nil, isEmailVerified: false, isAnonymous: true, tenantID: nil,
            idToken: "ID-TOKEN-MARKER", refreshToken: "REFRESH-MARKER", idTokenExpiration: Date(), factors: [])
        let saved = Date()
        try await sessions.save(session, key: "app")
        let raw = try #require(await base.value(forKey: "auth-session/app", at: saved))
        #expect(!String(decoding: raw, as: UTF8.self).contains("MARKER"))
        #expect(await base.value(forKey: "auth-session/app", at: saved.addingTimeInterval(590)) != nil)
        #expect(await base.value(forKey: "auth-session/app", at: saved.addingTimeInterval(610)) == nil)
        #expect(try await sessions.load(key: "app") == session)
        #expect(sessions.lifetime == .seconds(600))
    }
}

@Suite struct TOTPSecretSealerTests {
    let key = Array("12345678901234567890".utf8)

    @Test func aSealedSecretOpensOnlyForItsUser() throws {
        let sealer = TOTPSecretSealer(keyRing: try SealingKeyRing([try SealingKey.random(id: "k1")]))
        let sealed = try sealer.seal(key, userID: "alice")
        #expect(sealed.hasPrefix("s1.k1."))
        #expect(!sealed.contains(Data(key).base64EncodedString()))
        #expect(try sealer.open(sealed, userID: "alice") == key)
        // Copied to another user's row: it does not open.
        #expect(
            #expect(throws: SealedStateError.self) { try sealer.open(sealed, userID: "mallory") }?.code
                == .authenticationFailed)
        // Nor as in-flight state of another purpose.
        let state = SealedStateCodec(keyRing: sealer.codec.keyRing, purpose: "totplogin.browser")
        #expect(throws: SealedStateError.self) { try state.openData(sealed, boundTo: "user:alice") }
        #expect("\(sealer)" == "TOTPSecretSealer(keys: k1)")
        // Tenants: a key sealed for one tenant's user opens for no other
        // tenant's user of the same uid, nor for the project's.
        let tenantSealed = try sealer.seal(key, userID: "alice", tenantID: "tenant-a")
        #expect(try sealer.open(tenantSealed, userID: "alice", tenantID: "tenant-a") == key)
        for (uid, tenant) in [("alice", "tenant-b"), ("alice", nil), ("tenant-a/user:alice", nil)]
            as [(String, String?)]
        {
            #expect(
                #expect(throws: SealedStateError.self) { try sealer.open(tenantSealed, userID: uid, tenantID: tenant) }?
                    .code == .authenticationFailed)
        }
        #expect(
            #expect(throws: SealedStateError.self) { try sealer.open(sealed, userID: "alice", tenantID: "tenant-a") }?
                .code == .authenticationFailed)
        #expect(
            try sealer.open(sealed, userID: "alice", tenantID: nil) == key,
            "the project's rows sealed before stay readable")
    }

    @Test func rotationResealsUnderTheNewestKeyAndAnOldKeyIsNamed() throws {
        let old = try SealingKey.random(id: "2025")
        let new = try SealingKey.random(id: "2026")
        let before = TOTPSecretSealer(keyRing: try SealingKeyRing([old]))
        let sealed = try before.seal(key, userID: "alice")
        let during = TOTPSecretSealer(keyRing: try SealingKeyRing([new, old]))
        #expect(try during.open(sealed, userID: "alice") == key)
        let resealed = try #require(try during.resealed(sealed, userID: "alice"))
        #expect(resealed.hasPrefix("s1.2026."))
        #expect(try during.resealed(resealed, userID: "alice") == nil, "already under the newest key")
        // Once the old key leaves the ring, a row not resealed is a typed error naming it.
        let after = TOTPSecretSealer(keyRing: try SealingKeyRing([new]))
        #expect(try after.open(resealed, userID: "alice") == key)
        do {
            _ = try after.open(sealed, userID: "alice")
            Issue.record("opened under a key the ring no longer holds")
        } catch {
            #expect(error.code == .unknownKey)
            #expect(error.keyID == "2025")
            #expect("\(error)".contains("2025"))
        }
        #expect(
            #expect(throws: SealedStateError.self) { try after.resealed(sealed, userID: "alice") }?.code == .unknownKey)
    }
}

/// An `ExpiringStateStore` that counts the reads and swaps made on `base`.
actor CountingStateStore: ExpiringStateStore {
    struct Counts: Equatable { var reads = 0, swaps = 0 }
    let base: any ExpiringStateStore
    private(set) var counts = Counts()

    init(base: any ExpiringStateStore) { self.base = base }

    func setValue(_ value: Data, forKey key: String, expiresAt: Date) async throws {
        try await base.setValue(value, forKey: key, expiresAt: expiresAt)
    }

    func value(forKey key: String, at now: Date) async throws -> Data? {
        counts.reads += 1
        return try await base.value(forKey: key, at: now)
    }

    func takeValue(forKey key: String, at now: Date) async throws -> Data? {
        try await base.takeValue(forKey: key, at: now)
    }

    func removeValue(forKey key: String) async throws {
        try await base.removeValue(forKey: key)
    }

    func compareAndSwapValue(forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date, at now: Date)
        async throws -> Bool
    {
        counts.swaps += 1
        return try await base.compareAndSwapValue(
            forKey: key, expected: expected, newValue: newValue, expiresAt: expiresAt, at: now)
    }
}
