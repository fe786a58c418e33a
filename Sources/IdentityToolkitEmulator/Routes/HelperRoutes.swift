#if Emulator
import Foundation
@_spi(Generated) import IdentityToolkit
import IdentitySupport

/// The `/emulator/v1/…` helpers (`EmulatorHelpersService`, generated from
/// `Spec/emulator.yaml`): the codes the emulator "sent", a store reset, the
/// clock and the service accounts it trusts. The ones that change state
/// need `Bearer owner` (the spec's security), as admin routes do.
struct HelperRoutes: EmulatorHelpersService {
    let services: EmulatorServices
    let oauth: OAuthTokenEndpoint
    let console: ConsoleSettings

    private var clock: EmulatorClock { services.clock }

    func listOobCodes(project: String, request: APIServerRequest) async throws -> OobCodeListing {
        try await oobCodes(Realm(project: project, tenant: nil))
    }

    func listTenantOobCodes(project: String, tenant: String, request: APIServerRequest) async throws
        -> OobCodeListing
    {
        try await oobCodes(Realm(project: project, tenant: tenant))
    }

    func listVerificationCodes(project: String, request: APIServerRequest) async throws -> VerificationCodeListing {
        try await verificationCodes(Realm(project: project, tenant: nil))
    }

    func listTenantVerificationCodes(project: String, tenant: String, request: APIServerRequest) async throws
        -> VerificationCodeListing
    {
        try await verificationCodes(Realm(project: project, tenant: tenant))
    }

    func deleteAllAccounts(project: String, request: APIServerRequest) async throws -> EmptyResponse {
        try await services.run { state, _ in
            AdminAccountRules.deleteAll(&state, realm: Realm(project: project, tenant: nil))
        }
        return EmptyResponse()
    }

    func deleteAllTenantAccounts(project: String, tenant: String, request: APIServerRequest) async throws
        -> EmptyResponse
    {
        try await services.run { state, _ in
            AdminAccountRules.deleteAll(&state, realm: Realm(project: project, tenant: tenant))
        }
        return EmptyResponse()
    }

    func listFaults(request: APIServerRequest) async throws -> EmulatorFaults {
        services.faults.current
    }

    func setFaults(_ faults: EmulatorFaults, request: APIServerRequest) async throws -> EmulatorFaults {
        try services.faults.replace(with: faults.faults ?? [])
        return services.faults.current
    }

    func clearFaults(request: APIServerRequest) async throws -> EmulatorFaults {
        services.faults.clear()
        return services.faults.current
    }

    func getEmulatorStatus(request: APIServerRequest) async throws -> EmulatorStatus {
        EmulatorStatus(
            authEmulator: AuthEmulatorStatus(
                ready: true, docs: Self.documentation, ui: Self.showConsolePath, projectId: services.defaultProject)
        )
    }

    /// Where the emulator is documented.
    static let documentation = "https://firebase.google.com/docs/emulator-suite"

    func getClock(request: APIServerRequest) async throws -> ClockState {
        currentTime()
    }

    /// Every number is range-checked before it becomes a date: the clock
    /// stays within `EmulatorClock.validRange` whatever is sent.
    func changeClock(_ change: ClockChange, request: APIServerRequest) async throws -> ClockState {
        if let millis = change.setMillis {
            let date = Date(timeIntervalSince1970: TimeInterval(millis) / 1000)
            guard EmulatorClock.validRange.contains(date) else {
                throw APIServerError.invalidArgument(
                    "setMillis must be between 0 and \(EmulatorClock.validRangeMillis.upperBound)")
            }
        }
        if let seconds = change.advanceSeconds {
            guard seconds.isFinite, abs(seconds) <= EmulatorClock.maximumStep else {
                throw APIServerError.invalidArgument(
                    "advanceSeconds must be a finite number of at most \(Int(EmulatorClock.maximumStep)) in size")
            }
        }
        if change.release == true { clock.release() }
        if let millis = change.setMillis { clock.set(Date(timeIntervalSince1970: TimeInterval(millis) / 1000)) }
        if let seconds = change.advanceSeconds {
            guard clock.advance(by: seconds) else {
                throw APIServerError.invalidArgument("advanceSeconds would move the clock outside 1970 to 9999")
            }
        }
        return currentTime()
    }

    func registerServiceAccount(_ registration: ServiceAccountRegistration, request: APIServerRequest) async throws
        -> EmptyResponse
    {
        do {
            try oauth.register(email: registration.clientEmail, publicKeyPEM: registration.publicKeyPem)
        } catch {
            throw APIServerError.invalidArgument("publicKeyPem is not an RSA public key in PEM form")
        }
        return EmptyResponse()
    }

    // MARK: Project settings and export

    func getEmulatorProjectConfig(project: String, request: APIServerRequest) async throws -> EmulatorProjectConfig {
        try await services.run { state, context in EmulatorExport.projectConfig(state, project: project, context) }
    }

    /// Changes the settings the body names; the others stay.
    func updateEmulatorProjectConfig(project: String, body: EmulatorProjectConfig, request: APIServerRequest)
        async throws -> EmulatorProjectConfig
    {
        try await services.run { state, context in
            try ProjectConfigRules.updateEmulatorSettings(&state, project: project, body, context)
        }
    }

    /// Exports to the folder the request names, which must be the export
    /// folder given at start or inside it (``ExportTarget``).
    func exportState(_ body: ExportRequest, request: APIServerRequest) async throws -> ExportResult {
        guard console.exportRoot != nil else {
            throw APIServerError.failedPrecondition(
                "no export folder: start the emulator with --export-dir DIR (or --export-on-exit DIR)")
        }
        let folder: URL
        do {
            folder = try ExportTarget.folder(forRequestedPath: body.path, root: console.exportRoot)
        } catch {
            throw APIServerError.invalidArgument(error.description)
        }
        do {
            let files = try await services.export(to: folder)
            return ExportResult(path: folder.path, files: files)
        } catch let error as APIServerError {
            throw error
        } catch let error as EmulatorExportError {
            throw APIServerError.failedPrecondition(error.description)
        } catch {
            throw APIServerError.internalError(
                "the export could not be written: \(LogSafeText.escaping(error.localizedDescription, limit: 200))")
        }
    }

    private func currentTime() -> ClockState {
        ClockState(nowMillis: Int64((clock.now.timeIntervalSince1970 * 1000).rounded()))
    }

    private func oobCodes(_ realm: Realm) async throws -> OobCodeListing {
        let codes = try await services.run { state, _ in OutOfBandRules.list(state, realm: realm) }
        return OobCodeListing(
            oobCodes: codes.map { code in
                OobCodeEntry(
                    email: code.email, newEmail: code.newEmail, oobCode: code.code,
                    oobLink: services.links.link(for: code),
                    requestType: code.requestType)
            })
    }

    private func verificationCodes(_ realm: Realm) async throws -> VerificationCodeListing {
        let codes = try await services.run { state, _ in MultiFactorRules.listVerificationCodes(state, realm: realm)
        }
        return VerificationCodeListing(
            verificationCodes: codes.map {
                VerificationCodeEntry(phoneNumber: $0.phoneNumber, sessionInfo: $0.sessionInfo, code: $0.code)
            })
    }
}
#endif
