import Foundation
import HTTPTypes
import IdentityServerState
import IdentitySupport
import IdentityToolkit
import IdentityToolkitTestSupport
import Logging
import Testing

@testable import IdentityAdmin

/// Verification through an outage of Google's key route: a fleet keeps its
/// last key sets in a shared store, sealed, and a fresh instance whose key
/// route is blackholed verifies with them until they expire.
@Suite struct SharedSigningKeysTests {
    typealias Forged = ForgedIDTokenTests
    struct Blackholed: Error {}

    static func ring(_ id: String) throws -> SealingKeyRing { try SealingKeyRing([try SealingKey.random(id: id)]) }

    /// A verifier whose key route is `route`, sharing sets in `store`, logging to `records`.
    static func instance(
        _ route: Forged.KeyRoute, store: SealingStateStore, time: Locked<Date>, records: LogRecords = LogRecords()
    ) -> IDTokenVerifier {
        let logger = Logger(label: "keys") { _ in CapturingLogHandler(records: records) }
        let cache = SigningKeyCache(logger: logger, now: { time.current }, fetch: { try await route.fetch() })
        cache.share(in: SharedKeySetStore(store: store, key: "identity-admin.signing-keys.id-tokens"))
        return IDTokenVerifier(
            projectID: Forged.project, kind: .idToken, tenantID: nil, clockSkew: .seconds(60), keys: cache,
            now: { time.current })
    }

    @Test func aFreshInstanceVerifiesWithTheFleetsSetWhileTheRouteIsDown() async throws {
        let table = InMemoryExpiringStateStore()
        let sealed = SealingStateStore(
            base: table, codec: SealedStateCodec(keyRing: try Self.ring("fleet"), purpose: "signing-keys"))
        let time = Locked(Forged.now)
        // The first instance fetches from the route (max-age 600 s) and keeps the set.
        let up = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]), cacheControl: "max-age=600")
        _ = try await Self.instance(up, store: sealed, time: time).verify(try Forged.token())

        // A new instance starts while the route is blackholed.
        let down = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]))
        down.answer.withLock { $0 = .failure(Blackholed()) }
        let records = LogRecords()
        let fresh = Self.instance(down, store: sealed, time: time, records: records)
        let decoded = try await fresh.verify(try Forged.token())
        #expect(decoded.uid == "uid-1")
        // A token signed by another key under the same kid is refused.
        await #expect(throws: TokenVerificationError.badSignature) {
            try await fresh.verify(try Forged.token(key: Forged.otherKey))
        }
        let notices = records.lines.filter { $0.contains("verifying with the key set the fleet stored") }
        #expect(notices.count == 1, "\(records.lines)")

        // Past the stored set's expiry, nothing verifies until the route answers again.
        time.withLock { $0 = Forged.now.addingTimeInterval(601 + 3600) }
        await #expect(throws: TokenVerificationError.self) {
            try await fresh.verify(try Forged.token(claims: Self.claims(at: time.current)))
        }
        down.answer.withLock { $0 = .success((try! Forged.jwks([("k1", Forged.key)]), [.cacheControl: "max-age=600"])) }
        time.withLock { $0 = $0.addingTimeInterval(400) } // past the backoff
        #expect(try await fresh.verify(try Forged.token(claims: Self.claims(at: time.current))).uid == "uid-1")
    }

    /// Whoever can write the table but lacks the fleet's ring cannot plant
    /// a key set: it does not open, and the verification fails closed.
    @Test func aSetWrittenWithoutTheFleetsRingIsNotUsed() async throws {
        let table = InMemoryExpiringStateStore()
        let attacker = SealingStateStore(
            base: table, codec: SealedStateCodec(keyRing: try Self.ring("attacker"), purpose: "signing-keys"))
        let forgedSet = try Forged.jwks([("k1", Forged.otherKey)])
        try await SharedKeySetStore(store: attacker, key: "identity-admin.signing-keys.id-tokens")
            .save(forgedSet, expiresAt: Forged.now.addingTimeInterval(3600))
        // The same in clear, as a plain write to the table would leave it.
        try await table.setValue(
            try JSONEncoder().encode(
                SharedKeySetStore.Entry(keys: forgedSet, expiresAt: Forged.now.addingTimeInterval(3600))),
            forKey: "identity-admin.signing-keys.session-cookies", expiresAt: Forged.now.addingTimeInterval(3600))
        let fleet = SealingStateStore(
            base: table, codec: SealedStateCodec(keyRing: try Self.ring("fleet"), purpose: "signing-keys"))
        let down = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]))
        down.answer.withLock { $0 = .failure(Blackholed()) }
        let fresh = Self.instance(down, store: fleet, time: Locked(Forged.now))
        await #expect(throws: TokenVerificationError.self) {
            try await fresh.verify(try Forged.token(key: Forged.otherKey))
        }
        await #expect(throws: TokenVerificationError.self) { try await fresh.verify(try Forged.token()) }
    }

    /// `shareSigningKeys(in:)` gives both of an admin's verifiers the store.
    @Test func anAdminSharesBothSets() async throws {
        let table = InMemoryExpiringStateStore()
        let sealed = SealingStateStore(
            base: table, codec: SealedStateCodec(keyRing: try Self.ring("fleet"), purpose: "signing-keys"))
        let expiry = Date().addingTimeInterval(600)
        for entry in ["identity-admin.signing-keys.id-tokens", "identity-admin.signing-keys.session-cookies"] {
            try await SharedKeySetStore(store: sealed, key: entry).save(
                try Forged.jwks([("k1", Forged.key)]), expiresAt: expiry)
        }
        // An emulator address nothing listens on: the key route fails.
        let admin = IdentityAdmin.emulator(projectID: Forged.project, hostAndPort: "127.0.0.1:1")
        admin.shareSigningKeys(in: sealed)
        let token = try Forged.token(claims: Self.claims(at: Date()))
        #expect(try await admin.verifyIDToken(token).uid == "uid-1")
        let cookieClaims = Self.claims(at: Date()).merging([
            "iss": "https://session.firebase.google.com/\(Forged.project)"
        ]) { $1 }
        #expect(try await admin.verifySessionCookie(try Forged.token(claims: cookieClaims)).uid == "uid-1")
    }

    static func claims(at time: Date) -> [String: Any] {
        Forged.claims { claims in
            let t = Int(time.timeIntervalSince1970)
            claims["iat"] = t - 10
            claims["auth_time"] = t - 100
            claims["exp"] = t + 3590
        }
    }
}
