import OTP
import Testing

@Suite struct VerifierTests {
    static let key = Array("12345678901234567890".utf8)

    @Test func acceptsOnceThenRefusesTheSameAndEarlierSteps() async throws {
        let totp = try TOTP(key: Self.key)
        let verifier = try TOTPVerifier(totp: totp, window: 2)
        let now: Int64 = 1_700_000_000
        let step = try totp.step(at: now)
        #expect(try await verifier.verify(totp.code(step: step), keyID: "u1", at: now) == .accepted(step: step))
        #expect(try await verifier.verify(totp.code(step: step), keyID: "u1", at: now) == .replayed(step: step))
        #expect(try await verifier.verify(totp.code(step: step - 1), keyID: "u1", at: now) == .replayed(step: step - 1))
        #expect(try await verifier.verify(totp.code(step: step + 1), keyID: "u1", at: now) == .accepted(step: step + 1))
        // Another key has its own history.
        #expect(try await verifier.verify(totp.code(step: step), keyID: "u2", at: now) == .accepted(step: step))
        #expect(try await verifier.verify("000000", keyID: "u3", at: now) == .invalid)
    }

    @Test func concurrentVerificationsOfOneCodeAcceptExactlyOne() async throws {
        let totp = try TOTP(key: Self.key)
        let verifier = try TOTPVerifier(totp: totp, window: 1)
        let now: Int64 = 1_800_000_000
        let code = try totp.code(at: now)
        let results = await withTaskGroup(of: TOTPVerifier.Result?.self) { group in
            for _ in 0..<200 {
                group.addTask { try? await verifier.verify(code, keyID: "same", at: now) }
            }
            var all: [TOTPVerifier.Result?] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.filter { if case .accepted = $0 { return true } else { return false } }.count == 1)
        #expect(results.filter { if case .replayed = $0 { return true } else { return false } }.count == 199)
    }

    @Test func aCustomStoreIsUsed() async throws {
        actor Refusing: TOTPReplayStore {
            var calls = 0
            func recordAcceptedStep(_ step: UInt64, for keyID: String) -> Bool {
                calls += 1
                return false
            }
        }
        let store = Refusing()
        let totp = try TOTP(key: Self.key)
        let verifier = try TOTPVerifier(totp: totp, window: 0, store: store)
        let result = try await verifier.verify(totp.code(at: 90), keyID: "k", at: 90)
        #expect(result == .replayed(step: 3))
        #expect(await store.calls == 1)
    }

    @Test func windowIsValidated() throws {
        let totp = try TOTP(key: Self.key)
        #expect(throws: OTPError.invalidWindow(11)) { try TOTPVerifier(totp: totp, window: 11) }
    }
}
