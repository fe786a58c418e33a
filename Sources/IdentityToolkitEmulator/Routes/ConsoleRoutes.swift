#if Emulator
import Foundation
import IdentityToolkit
import IdentityOTP
import IdentitySupport

/// What the emulator's page (`/emulator/ui`) needs besides the state.
struct ConsoleSettings: Sendable {
    /// The token every form of the page carries (CSRF): random per process,
    /// readable only by a page of the emulator's own origin (the page gets
    /// no CORS headers; ``LaptopSafety`` refuses other hosts).
    let formToken: String
    /// Where "Export now" writes (`--export-on-exit`), if anywhere.
    let exportDirectory: String?
    /// Where the export route may write (`--export-dir`, else the
    /// `--export-on-exit` folder), if anywhere.
    let exportRoot: String?

    init(exportDirectory: String?, exportRoot: String?) {
        formToken = Data.randomToken(bytes: 32)
        self.exportDirectory = exportDirectory
        self.exportRoot = exportRoot
    }
}

/// `GET` and `POST /emulator/ui`: the emulator's page for people. A
/// snapshot of the state is taken in one rule run and rendered by
/// ``ConsolePage``; each form runs one rule.
extension HelperRoutes {
    /// The most users the page lists for one project or tenant.
    static let consoleUserLimit = 200

    func showConsole(project: String?, tenant: String?, request: APIServerRequest) async throws -> String {
        try await consolePage(project: project, tenant: tenant, notice: nil)
    }

    func actOnConsole(_ body: ConsoleAction, request: APIServerRequest) async throws -> String {
        guard ConstantTime.equal(Array(body.csrf.utf8), Array(console.formToken.utf8)) else {
            throw APIServerError.permissionDenied(
                "the form's token is missing or out of date: reload the page and try again")
        }
        let project = body.project ?? services.defaultProject
        let notice: ConsolePage.Notice
        do {
            notice = .done(try await perform(body, project: project))
        } catch let error as APIServerError {
            notice = .failed(error.message)
        }
        return try await consolePage(project: project, tenant: body.tenant, notice: notice)
    }

    /// Runs one form's action; what it did, for the page.
    private func perform(_ action: ConsoleAction, project: String) async throws -> String {
        let realm = Realm(project: project, tenant: action.tenant?.isEmpty == false ? action.tenant : nil)
        switch action.action {
        case .deleteUser:
            guard let uid = action.uid else { throw APIServerError.missingLocalId }
            try await services.run { state, _ in try AdminAccountRules.delete(&state, realm: realm, localId: uid) }
            return "Deleted the user \(uid)."
        case .withdrawFactor:
            guard let uid = action.uid, let factor = action.factor else {
                throw APIServerError.invalidArgument("uid and factor are required")
            }
            try await services.run { state, _ in
                try AdminAccountRules.withdrawFactor(&state, realm: realm, uid: uid, factor: factor)
            }
            return "Withdrew the factor \(factor) of \(uid)."
        case .advanceClock:
            guard let seconds = action.seconds.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }),
                seconds.isFinite,
                abs(seconds) <= EmulatorClock.maximumStep
            else {
                throw APIServerError.invalidArgument("seconds must be a number")
            }
            guard services.clock.advance(by: seconds) else {
                throw APIServerError.invalidArgument("the clock would leave 1970 to 9999")
            }
            return "Moved the clock by \(seconds.formatted()) s."
        case .releaseClock:
            services.clock.release()
            return "The clock follows the system clock again."
        case .exportNow:
            guard let directory = console.exportDirectory else {
                throw APIServerError.failedPrecondition(
                    "no export folder: start the emulator with --export-on-exit DIR")
            }
            do {
                let files = try await services.export(to: URL(fileURLWithPath: directory))
                return "Exported \(files.count) files to \(directory)."
            } catch let error as EmulatorExportError {
                throw APIServerError.failedPrecondition(error.description)
            } catch {
                throw APIServerError.internalError("the export could not be written to \(directory)")
            }
        default:
            throw APIServerError.invalidArgument("unknown action")
        }
    }

    private func consolePage(project: String?, tenant: String?, notice: ConsolePage.Notice?) async throws -> String {
        let project = project?.isEmpty == false ? project! : services.defaultProject
        let tenant = tenant?.isEmpty == false ? tenant : nil
        let limit = Self.consoleUserLimit
        var snapshot = try await services.run { state, context in
            ConsolePage.Snapshot(state, project: project, tenant: tenant, userLimit: limit, context)
        }
        snapshot.blockingCalls = services.blockingCallLog.recent.filter { $0.project == snapshot.project }
        snapshot.faults = services.faults.current.faults ?? []
        snapshot.clockAdjusted = services.clock.isAdjusted
        snapshot.formToken = console.formToken
        snapshot.exportDirectory = console.exportDirectory
        snapshot.links = services.links
        snapshot.notice = notice
        return ConsolePage.render(snapshot)
    }
}
#endif
