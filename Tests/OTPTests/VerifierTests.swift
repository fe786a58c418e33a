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

    /// With an attempt limit, a key that got `maximumFailures` wrong (or
    /// replayed) codes is refused every code, the right one included, until a
    /// reset; a success clears the count. Without one, nothing is limited.
    @Test func anAttemptLimitStopsGuessing() async throws {
        let totp = try TOTP(key: Self.key)
        let limited = try TOTPVerifier(totp: totp, window: 1, attemptLimit: try TOTPAttemptLimit(maximumFailures: 3))
        let now: Int64 = 1_700_000_000
        let right = try totp.code(at: now)
        let wrong = right == "000000" ? "111111" : "000000"
        #expect(try await limited.verify(wrong, keyID: "u", at: now) == .invalid)
        #expect(try await limited.verify(right, keyID: "u", at: now) == .accepted(step: try totp.step(at: now)))
        #expect(await limited.attempts.failures(for: "u") == 0)
        for _ in 0..<2 { #expect(try await limited.verify(wrong, keyID: "u", at: now) == .invalid) }
        #expect(try await limited.verify(right, keyID: "u", at: now) == .replayed(step: try totp.step(at: now)))
        await #expect(throws: OTPError.tooManyAttempts(limit: 3)) { _ = try await limited.verify(try totp.code(at: now + 30), keyID: "u", at: now + 30) }
        // Other keys are not affected; a reset lets the key try again.
        #expect(try await limited.verify(right, keyID: "v", at: now) == .accepted(step: try totp.step(at: now)))
        await limited.attempts.reset("u")
        #expect(try await limited.verify(try totp.code(at: now + 30), keyID: "u", at: now + 30) == .accepted(step: try totp.step(at: now + 30)))

        let unlimited = try TOTPVerifier(totp: totp, window: 1)
        for _ in 0..<50 { #expect(try await unlimited.verify(wrong, keyID: "u", at: now) == .invalid) }
        #expect(throws: OTPError.invalidAttemptLimit(0)) { _ = try TOTPAttemptLimit(maximumFailures: 0) }
    }

    /// The static form counts failures in the caller's state.
    @Test func theStaticCheckCountsFailuresInTheCallersState() throws {
        let totp = try TOTP(key: Self.key)
        let now: Int64 = 1_700_000_000
        let right = try totp.code(at: now)
        let wrong = right == "000000" ? "111111" : "000000"
        var failures = 0
        let limit = try TOTPAttemptLimit(maximumFailures: 2)
        #expect(try TOTPVerifier.check(wrong, totp: totp, window: 1, at: now, lastAcceptedStep: nil, failures: &failures, limit: limit) == .invalid)
        #expect(failures == 1)
        #expect(try TOTPVerifier.check(right, totp: totp, window: 1, at: now, lastAcceptedStep: nil, failures: &failures, limit: limit) == .accepted(step: try totp.step(at: now)))
        #expect(failures == 1)
        #expect(try TOTPVerifier.check(wrong, totp: totp, window: 1, at: now, lastAcceptedStep: nil, failures: &failures, limit: limit) == .invalid)
        #expect(throws: OTPError.tooManyAttempts(limit: 2)) {
            _ = try TOTPVerifier.check(right, totp: totp, window: 1, at: now, lastAcceptedStep: nil, failures: &failures, limit: limit)
        }
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

    /// With the key 0x00…0x13, steps 149,082 and 149,091 share the code
    /// 483607 (found by a search over HMAC-SHA1; checked below).
    static let collidingKey = Array(UInt8(0)...UInt8(19))
    static let collidingSteps: (earlier: UInt64, later: UInt64) = (149_082, 149_091)

    @Test func aCodeSharedByTwoStepsInTheWindowCannotBeReplayed() async throws {
        let totp = try TOTP(key: Self.collidingKey)
        let (earlier, later) = Self.collidingSteps
        #expect(totp.code(step: earlier) == "483607" && totp.code(step: later) == "483607")
        let now = Int64(earlier + 4) * 30  // both steps within a window of 5
        #expect(try totp.matchingStep(for: "483607", at: now, window: 5) == later, "the latest matching step")
        let verifier = try TOTPVerifier(totp: totp, window: 5)
        #expect(try await verifier.verify("483607", keyID: "k", at: now) == .accepted(step: later))
        // Accepting the nearer, earlier step instead would have left the
        // later one open for the same code to be used twice.
        #expect(try await verifier.verify("483607", keyID: "k", at: now) == .replayed(step: later))
    }

    @Test func aCodeWhoseTwinWasUsedIsStillAccepted() async throws {
        let totp = try TOTP(key: Self.collidingKey)
        let (earlier, later) = Self.collidingSteps
        let store = InMemoryTOTPReplayStore()
        #expect(await store.recordAcceptedStep(earlier + 1, for: "k"))
        let verifier = try TOTPVerifier(totp: totp, window: 5, store: store)
        let now = Int64(earlier + 4) * 30  // the earlier step is the nearer one
        #expect(try await verifier.verify(totp.code(step: later), keyID: "k", at: now) == .accepted(step: later))
    }
}

@Suite struct VerifierCheckTests {
    @Test func checkAppliesTheSameRuleAsVerify() async throws {
        let totp = try TOTP(key: Array("12345678901234567890".utf8))
        let now: Int64 = 1_700_000_000
        let code = try totp.code(at: now)
        let step = try totp.step(at: now)
        #expect(try TOTPVerifier.check(code, totp: totp, window: 1, at: now, lastAcceptedStep: nil) == .accepted(step: step))
        #expect(try TOTPVerifier.check(code, totp: totp, window: 1, at: now, lastAcceptedStep: step) == .replayed(step: step))
        #expect(try TOTPVerifier.check(code, totp: totp, window: 1, at: now, lastAcceptedStep: step - 1) == .accepted(step: step))
        #expect(try TOTPVerifier.check("000000" == code ? "111111" : "000000", totp: totp, window: 0, at: now, lastAcceptedStep: nil) == .invalid)
        let verifier = try TOTPVerifier(totp: totp, window: 1)
        #expect(try await verifier.verify(code, keyID: "k", at: now) == .accepted(step: step))
        #expect(try await verifier.verify(code, keyID: "k", at: now) == .replayed(step: step))
        #expect(throws: OTPError.self) { try TOTPVerifier.check(code, totp: totp, window: 11, at: now, lastAcceptedStep: nil) }
    }
}
