#if Configuration
public import Configuration
public import IdentityToolkit
import Foundation

extension IdentityAdmin {
    /// An instance configured through swift-configuration, as an app
    /// configures the rest (`config.scoped(to: "firebase")`, say; an
    /// environment provider then reads `FIREBASE_PROJECT_ID`,
    /// `FIREBASE_EMULATOR_HOST` and `FIREBASE_CREDENTIALS_FILE`).
    ///
    /// ## Configuration keys
    /// - `projectId` (string, required): the project.
    /// - `emulatorHost` (string, optional): `HOST:PORT` of an emulator; when
    ///   set, calls go there as its owner and no credential is read.
    ///   Without it, `FIREBASE_AUTH_EMULATOR_HOST` still applies, as in
    ///   ``init(projectID:credential:configuration:)`` (and is logged as a warning).
    /// - `credentialsFile` (string, optional): a service account's key file;
    ///   without it, the application default credential
    ///   (`GOOGLE_APPLICATION_CREDENTIALS`, read when a token is first needed).
    /// - `requestTimeout` (double, seconds, optional, default 30): one REST call's limit.
    ///
    /// - Parameters:
    ///   - config: The reader, scoped to the admin's keys.
    ///   - transport: Sends the requests (the server transport, `AsyncHTTPClientTransport`, in a server).
    /// - Throws: swift-configuration's error for a missing `projectId`, or
    ///   the credential's error for an unreadable key file.
    public convenience init(config: ConfigReader, transport: any HTTPTransport = URLSessionTransport.shared) throws {
        let projectID = try config.requiredString(forKey: "projectId")
        let timeout = config.double(forKey: "requestTimeout", default: 30)
        guard timeout > 0, timeout.isFinite else {
            throw AdminValidationError(
                field: "requestTimeout", message: "must be a positive number of seconds, not \(timeout)")
        }
        let emulatorHost = config.string(forKey: "emulatorHost").flatMap { $0.isEmpty ? nil : $0 }
        let configuration = ClientConfiguration(
            transport: transport, emulatorHost: emulatorHost ?? ClientConfiguration.environmentEmulatorHost(),
            requestTimeout: .milliseconds(Int64(timeout * 1000)))
        let credential: any AdminCredential
        if configuration.emulatorHost != nil {
            credential = EmulatorOwnerCredential()
        } else if let file = config.string(forKey: "credentialsFile"), !file.isEmpty {
            credential = try ServiceAccountCredential(keyFile: file, transport: transport)
        } else {
            credential = ApplicationDefaultCredential(transport: transport)
        }
        self.init(
            projectID: projectID, credential: credential, configuration: configuration, tokenCache: .default,
            emulatorNamedInCode: emulatorHost != nil)
    }
}
#endif
