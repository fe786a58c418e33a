import Foundation
import IdentityToolkit

/// The `/emulator/v1/…` helpers (`EmulatorHelpersService`, generated from
/// `Spec/emulator.yaml`): the codes the emulator "sent", a store reset, the
/// clock and the service accounts it trusts.
struct HelperEmulation: EmulatorHelpersService {
    let store: EmulatorStore
    let clock: EmulatorClock
    let oauth: OAuthTokenEndpoint
    let issuer: TokenIssuer
    let links: LinkBase

    func listOobCodes(project: String, request: APIServerRequest) async throws -> OobCodeListing {
        await oobCodes(project: project, tenant: nil)
    }

    func listTenantOobCodes(project: String, tenant: String, request: APIServerRequest) async throws -> OobCodeListing {
        await oobCodes(project: project, tenant: tenant)
    }

    func listVerificationCodes(project: String, request: APIServerRequest) async throws -> VerificationCodeListing {
        await verificationCodes(project: project, tenant: nil)
    }

    func listTenantVerificationCodes(project: String, tenant: String, request: APIServerRequest) async throws -> VerificationCodeListing {
        await verificationCodes(project: project, tenant: tenant)
    }

    func deleteAllAccounts(project: String, request: APIServerRequest) async throws -> EmptyResponse {
        await store.deleteAccounts(project: project, tenant: nil)
        return EmptyResponse()
    }

    func deleteAllTenantAccounts(project: String, tenant: String, request: APIServerRequest) async throws -> EmptyResponse {
        await store.deleteAccounts(project: project, tenant: tenant)
        return EmptyResponse()
    }

    func getClock(request: APIServerRequest) async throws -> ClockState {
        currentTime()
    }

    /// Every number is range-checked before it becomes a date: the clock
    /// stays within `EmulatorClock.validRange` whatever is sent.
    func changeClock(_ change: ClockChange, request: APIServerRequest) async throws -> ClockState {
        if let millis = change.setMillis {
            let date = Date(timeIntervalSince1970: TimeInterval(millis) / 1000)
            guard EmulatorClock.validRange.contains(date) else {
                throw APIServerError.invalidArgument("setMillis must be between 0 and \(EmulatorClock.validRangeMillis.upperBound)")
            }
        }
        if let seconds = change.advanceSeconds {
            guard seconds.isFinite, abs(seconds) <= EmulatorClock.maximumStep else {
                throw APIServerError.invalidArgument("advanceSeconds must be a finite number of at most \(Int(EmulatorClock.maximumStep)) in size")
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

    func registerServiceAccount(_ registration: ServiceAccountRegistration, request: APIServerRequest) async throws -> EmptyResponse {
        do {
            try oauth.register(email: registration.clientEmail, publicKeyPEM: registration.publicKeyPem)
        } catch {
            throw APIServerError.invalidArgument("publicKeyPem is not an RSA public key in PEM form")
        }
        return EmptyResponse()
    }

    private func currentTime() -> ClockState {
        ClockState(nowMillis: Int64((clock.now.timeIntervalSince1970 * 1000).rounded()))
    }

    private func oobCodes(project: String, tenant: String?) async -> OobCodeListing {
        let entries = await store.listOobCodes(project: project, tenant: tenant).map { code in
            OobCodeEntry(email: code.email, oobCode: code.code, oobLink: links.actionLink(for: code), requestType: code.requestType)
        }
        return OobCodeListing(oobCodes: entries)
    }

    private func verificationCodes(project: String, tenant: String?) async -> VerificationCodeListing {
        let entries = await store.listVerificationCodes(project: project, tenant: tenant).map {
            VerificationCodeEntry(phoneNumber: $0.phoneNumber, sessionInfo: $0.sessionInfo, code: $0.code)
        }
        return VerificationCodeListing(verificationCodes: entries)
    }
}
