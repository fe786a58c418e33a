import AdminTestSupport
import Foundation
@_spi(Benchmarks) import IdentityAdmin
import IdentityOTP
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import InMemoryTracing
import Metrics
import MetricsTestKit
import Testing
import Tracing

/// What the `Telemetry` trait records, read through swift-metrics' test
/// kit and an in-memory tracer bound to each test's task (so that tests
/// running in parallel never see each other's figures): the counters by
/// outcome and reason, the span tree of one verification with the trace
/// context sent along, and no secret in any dimension or attribute.
@Suite struct TelemetryTests {
    @Test func aVerificationIsCountedAndTracedAndNoSecretReachesEither() async throws {
        try await EmulatorSetup.with(project: "demo-telemetry") { setup in
            let email = "telemetry@example.com"
            let password = "correct horse"
            let created = try await setup.accounts.signUp(
                SignUpRequest(email: email, password: password, returnSecureToken: true))
            let idToken = try #require(created.idToken)

            let metrics = TestMetrics()
            let tracer = InMemoryTracer()
            try await withMetricsFactory(metrics) {
                try await withTracer(tracer) {
                    // Made inside the scope: its metrics bind to the test's factory.
                    let admin = IdentityAdmin.emulator(
                        projectID: "demo-telemetry", hostAndPort: setup.hostAndPort, transport: setup.transport)
                    _ = try await admin.verifyIDToken(idToken)
                    _ = try await admin.verifyIDToken(idToken)
                    _ = try await admin.verifyIDToken(idToken, checkRevoked: true)
                    // The benchmarks' baseline records nothing (the counts below stay).
                    _ = try await admin.idTokenVerifier.withoutTelemetry().verify(idToken)
                    await #expect(throws: TokenVerificationError.self) {
                        _ = try await admin.verifyIDToken("not.a.token")
                    }
                }
            }

            let idTokens: [(String, String)] = [("kind", "id_token")]
            func verifications(_ outcome: String, _ reason: String, _ source: String) -> Int64 {
                metrics.counterTotal(
                    label: "firebase_token_verifications_total",
                    dimensions: idTokens + [("outcome", outcome), ("reason", reason), ("source", source)])
            }
            // The first by its signature, the next two from the cache (its hits).
            #expect(verifications("verified", "none", "signature") == 1)
            #expect(verifications("verified", "none", "cache") == 2)
            #expect(verifications("refused", "malformed", "signature") == 1)
            // The first verification and the malformed token: the two the cache did not answer.
            #expect(try metrics.expectTimer("firebase_token_signature_check_seconds", idTokens).values.count == 2)
            #expect(
                metrics.counterTotal(label: "firebase_signing_key_fetches_total", dimensions: [("outcome", "ok")]) == 1)
            #expect(
                metrics.counterTotal(
                    label: "firebase_token_revocation_checks_total",
                    dimensions: [("outcome", "ok"), ("source", "lookup")])
                    == 1)

            // The first verification: its span, the key fetch under it, and the
            // key route's request carried the trace context.
            let spans = tracer.finishedSpans
            let verifications = spans.filter { $0.operationName == "verifyIDToken" }
            #expect(verifications.count == 4)
            let first = try #require(
                verifications.first { span in spans.contains { $0.parentSpanID == span.spanID && $0.kind == .client } })
            let children = spans.filter { $0.parentSpanID == first.spanID }
            #expect(children.count == 1)
            let keyFetch = try #require(children.first)
            #expect(keyFetch.kind == .client)
            #expect(keyFetch.operationName.hasPrefix("GET "))
            #expect(keyFetch.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
            #expect(
                tracer.performedContextInjections.contains { $0.values[InMemoryTracer.spanIDKey] == keyFetch.spanID })
            // The revocation check's lookup is a child of the third verification.
            let revocation = try #require(
                verifications.first { $0.attributes["firebase.token.check_revoked"]?.toSpanAttribute() == .bool(true) })
            #expect(
                spans.contains { $0.parentSpanID == revocation.spanID && $0.operationName.hasSuffix("accounts:lookup") }
            )
            let refused = try #require(verifications.first { $0.status?.code == .error })
            #expect(refused.attributes["firebase.token.refusal"]?.toSpanAttribute() == .string("malformed"))

            let secrets = [idToken, email, password, created.localId, try #require(created.refreshToken)]
            Self.expectNone(of: secrets, in: metrics, tracer)
            printSpanTree(spans)
        }
    }

    @Test func totpVerificationsAreCountedByOutcomeAndLockOutsShow() async throws {
        let metrics = TestMetrics()
        let totp = try TOTP(key: Array("12345678901234567890".utf8))
        let now: Int64 = 1_800_000_000
        try await withMetricsFactory(metrics) {
            let verifier = try TOTPVerifier(
                totp: totp, window: 1, store: ExpiringStateTOTPVerificationStore(),
                attemptLimit: TOTPAttemptLimit(maximumFailures: 3))
            let code = try totp.code(at: now)
            _ = try await verifier.verify(code, keyID: "tenant/user", at: now)
            _ = try await verifier.verify(code, keyID: "tenant/user", at: now)
            for _ in 0..<2 { _ = try await verifier.verify("000000", keyID: "tenant/user", at: now) }
            await #expect(throws: OTPError.self) { _ = try await verifier.verify(code, keyID: "tenant/user", at: now) }
        }
        let outcomes = ["accepted": 1, "replayed": 1, "invalid": 2, "locked_out": 1]
        for (outcome, count) in outcomes {
            #expect(
                metrics.counterTotal(label: "totp_verifications_total", dimensions: [("outcome", outcome)])
                    == Int64(count), "\(outcome)")
        }
        Self.expectNone(of: ["tenant/user", "000000"], in: metrics, InMemoryTracer())
    }

    @Test func recoveriesAreCountedByOutcome() async throws {
        try await EmulatorSetup.with(project: "demo-telemetry-recovery") { setup in
            let created = try await setup.accounts.signUp(
                SignUpRequest(email: "lost@example.com", password: "correct horse", returnSecureToken: true))
            let metrics = TestMetrics()
            let tracer = InMemoryTracer()
            let codes = try await withMetricsFactory(metrics) {
                try await withTracer(tracer) {
                    let recovery = AccountRecovery(
                        admin: setup.admin,
                        redeemer: RecoveryCodeRedeemer(
                            store: ExpiringStateRecoveryCodeStore(),
                            attemptStore: ExpiringStateTOTPVerificationStore()))
                    let codes = try await recovery.issueCodes(for: created.localId)
                    let proof = FirstFactorProof(uid: created.localId, checkedAt: Date())
                    await #expect(throws: AdminError.self) {
                        _ = try await recovery.recover(proof, code: "0000-0000-0000")
                    }
                    _ = try await recovery.recover(proof, code: codes.codes[0])
                    return codes
                }
            }
            #expect(metrics.counterTotal(label: "recovery_code_sets_issued_total") == 1)
            #expect(
                metrics.counterTotal(
                    label: "account_recoveries_total", dimensions: [("outcome", "invalidRecoveryCode")])
                    == 1)
            #expect(
                metrics.counterTotal(label: "account_recoveries_total", dimensions: [("outcome", "recovered")]) == 1)
            #expect(tracer.finishedSpans.filter { $0.operationName == "recoverAccount" }.count == 2)
            Self.expectNone(of: codes.codes + [created.localId, "lost@example.com"], in: metrics, tracer)
        }
    }

    /// No metric label, dimension, span name or attribute holds any of `secrets`.
    static func expectNone(of secrets: [String], in metrics: TestMetrics, _ tracer: InMemoryTracer) {
        var recorded: [String] = []
        for counter in metrics.counters { recorded += [counter.label] + counter.dimensions.flatMap { [$0.0, $0.1] } }
        for timer in metrics.timers { recorded += [timer.label] + timer.dimensions.flatMap { [$0.0, $0.1] } }
        for span in tracer.finishedSpans {
            recorded.append(span.operationName)
            span.attributes.forEach { key, value in recorded += [key, "\(value)"] }
            if let message = span.status?.message { recorded.append(message) }
        }
        #expect(!recorded.isEmpty)
        for secret in secrets {
            #expect(!recorded.contains { $0.contains(secret) }, "a secret reached a metric or a span")
        }
    }

    /// The span tree, printed for the issue's note (`swift test --filter TelemetryTests`).
    func printSpanTree(_ spans: [FinishedInMemorySpan]) {
        func walk(_ parent: String?, _ depth: Int) {
            for span in spans where span.parentSpanID == parent {
                var pairs: [String] = []
                span.attributes.forEach { key, value in pairs.append("\(key)=\(value)") }
                let attributes = pairs.sorted().joined(separator: " ")
                print(String(repeating: "  ", count: depth) + "\(span.operationName) [\(span.kind)] \(attributes)")
                walk(span.spanID, depth + 1)
            }
        }
        walk(nil, 0)
    }
}
