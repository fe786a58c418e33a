import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityOTP
import IdentityServerState
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import Logging
import Testing

@testable import TOTPLoginApp

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The harness of the app's suites: instances on one emulator, browsers that keep cookies.
extension TOTPLoginAppTests {
    // MARK: Harness

    static func wrong(_ code: String) -> String {
        String(code.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
    }

    func withApp(_ body: @Sendable (TOTPLoginApp, RunningEmulator, TestBrowser) async throws -> Void) async throws {
        try await withInstances(count: 1) { apps, emulator, browser in try await body(apps[0], emulator, browser) }
    }

    /// Identity Platform out of reach: every operation of `emulator` answers 503 from now on.
    static func cutOff(_ emulator: RunningEmulator) async throws {
        _ = try await EmulatorHelpersClient(
            accessToken: { "owner" }, configuration: ClientConfiguration(emulatorHost: emulator.hostAndPort)
        ).setFaults(EmulatorFaults(faults: [EmulatorFault(operation: "*", kind: .unavailable)]))
    }

    /// Where the instances of one test keep their state.
    enum SharedState {
        /// One in-memory store, as PostgreSQL's is shared.
        case store
        /// Sealed cookies, every instance with the same keys.
        case sealed
    }

    /// `count` instances of the app on one emulator, sharing their state and
    /// attempt counts as a fleet behind a balancer does; the browser sends
    /// each request to the next instance in turn (round robin).
    func withInstances(
        count: Int, state: SharedState = .store, publicURL: URL? = nil, trustForwardedFor: Bool = false,
        enrollmentDeadline: Date? = nil,
        _ body: @Sendable ([TOTPLoginApp], RunningEmulator, TestBrowser) async throws -> Void
    ) async throws {
        let project = "totp-login-\(UUID().uuidString.prefix(8).lowercased())"
        try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: project)
        ).serving { emulator in
            let backend = try IdentityBackend(
                emulatorHost: emulator.host, emulatorPort: emulator.port, projectID: project)
            try await backend.enableTOTP()
            var quiet = Logger(label: "TOTPLoginTests")
            quiet.logLevel = .critical
            let configuration: BrowserStateConfiguration =
                switch state {
                case .store:
                    .store(
                        InMemoryExpiringStateStore(), name: "memory",
                        keyRing: try! SealingKeyRing([SealingKey.random(id: "test")]))
                case .sealed: .sealedCookie(keyRing: try SealingKeyRing([SealingKey.random(id: "k1")]))
                }
            let attempts = ExpiringStateTOTPVerificationStore()
            let recoveryCodes = ExpiringStateRecoveryCodeStore()
            let (events, outbox) = (AppendOnlySecurityEventLog(), InMemoryNotificationOutbox())
            let apps = (0..<count).map { _ in
                TOTPLoginApp(
                    backend: backend, state: configuration, attempts: attempts, recoveryCodes: recoveryCodes,
                    publicURL: publicURL,
                    trustForwardedFor: trustForwardedFor, logger: quiet, securityEvents: events, outbox: outbox,
                    enrollmentDeadline: enrollmentDeadline)
            }
            try await Self.withClients(apps[...], []) { clients in
                try await body(
                    apps, emulator, TestBrowser(clients: clients, cookieName: apps[0].cookies.browserCookieName))
            }
        }
    }

    /// A test client for each app, nested.
    static func withClients(
        _ apps: ArraySlice<TOTPLoginApp>, _ clients: [any TestClientProtocol],
        _ body: @Sendable ([any TestClientProtocol]) async throws -> Void
    ) async throws {
        guard let first = apps.first else { return try await body(clients) }
        try await Application(router: first.router()).test(.router) { client in
            try await withClients(apps.dropFirst(), clients + [client], body)
        }
    }
}
