import Foundation
import IdentitySupport
public import IdentityToolkit

/// The settings of a Firebase app. A class, as in Firebase, so that
/// `let options = FirebaseOptions(…); options.apiKey = "…"` works.
public final class FirebaseOptions: @unchecked Sendable {
    private struct Values {
        var googleAppID: String
        var gcmSenderID: String
        var apiKey: String?
        var projectID: String?
        var httpTransport: any HTTPTransport = URLSessionTransport.shared
        var requestTimeout: Duration = .seconds(30)
    }

    private let values: Locked<Values>

    /// Creates options with the app id and sender id from the Firebase console.
    public init(googleAppID: String, gcmSenderID: String) {
        values = Locked(Values(googleAppID: googleAppID, gcmSenderID: gcmSenderID))
    }

    /// Options read from a `GoogleService-Info.plist` (its keys are
    /// `GoogleServiceInfo` of the spec); nil when the file cannot be read or
    /// lacks `GOOGLE_APP_ID` or `GCM_SENDER_ID`.
    public convenience init?(contentsOfFile plistPath: String) {
        guard let data = FileManager.default.contents(atPath: plistPath), data.count <= 1 << 20,
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            // Only the string values, re-read through the generated model.
            let json = try? JSONSerialization.data(withJSONObject: plist.compactMapValues { $0 as? String }),
            let info = try? JSONDecoder().decode(GoogleServiceInfo.self, from: json)
        else { return nil }
        self.init(googleAppID: info.googleAppID, gcmSenderID: info.gcmSenderID)
        apiKey = info.apiKey
        projectID = info.projectID
    }

    /// The options of `GoogleService-Info.plist` in the main bundle, else in
    /// the working directory (where a server keeps it); nil without one.
    public static func defaultOptions() -> FirebaseOptions? {
        defaultOptions(
            bundlePath: Bundle.main.path(forResource: "GoogleService-Info", ofType: "plist"),
            workingDirectory: FileManager.default.currentDirectoryPath)
    }

    static func defaultOptions(bundlePath: String?, workingDirectory: String) -> FirebaseOptions? {
        if let bundlePath, let options = FirebaseOptions(contentsOfFile: bundlePath) { return options }
        return FirebaseOptions(contentsOfFile: workingDirectory + "/GoogleService-Info.plist")
    }

    /// The app id, sent as `X-Firebase-GMPID`.
    public var googleAppID: String {
        get { values.current.googleAppID }
        set { values.withLock { $0.googleAppID = newValue } }
    }

    /// The Cloud Messaging sender id (unused by Auth).
    public var gcmSenderID: String {
        get { values.current.gcmSenderID }
        set { values.withLock { $0.gcmSenderID = newValue } }
    }

    /// The project's Web API key; every Auth call needs it.
    public var apiKey: String? {
        get { values.current.apiKey }
        set { values.withLock { $0.apiKey = newValue } }
    }

    /// The project id.
    public var projectID: String? {
        get { values.current.projectID }
        set { values.withLock { $0.projectID = newValue } }
    }

    /// Not in Firebase: how this app's requests are sent. URLSession by
    /// default; servers use `AsyncHTTPClientTransport` from `IdentityToolkitAsyncHTTPClient`.
    public var httpTransport: any HTTPTransport {
        get { values.current.httpTransport }
        set { values.withLock { $0.httpTransport = newValue } }
    }

    /// Not in Firebase: how long one request may take, from sending to the
    /// last response byte (30 seconds by default). A server that stalls or
    /// trickles its answer fails the call with `networkError` at this deadline.
    public var requestTimeout: Duration {
        get { values.current.requestTimeout }
        set { values.withLock { $0.requestTimeout = newValue } }
    }
}

/// A configured Firebase app: a name and its options.
public final class FirebaseApp: Sendable {
    /// The name of the default app.
    public static let defaultAppName = "__FIRAPP_DEFAULT"
    private static let registry = Locked<[String: FirebaseApp]>([:])

    /// The app's name.
    public let name: String
    /// The app's options.
    public let options: FirebaseOptions

    private init(name: String, options: FirebaseOptions) {
        self.name = name
        self.options = options
    }

    /// Configures the default app from `GoogleService-Info.plist`
    /// (``FirebaseOptions/defaultOptions()``), as the first line of most
    /// Firebase apps does. Without a readable file Firebase stops the
    /// process; here it says so on standard error, the default app stays
    /// unconfigured, and Auth calls fail with an `AuthErrorCode` that says
    /// no app is configured.
    public static func configure() {
        guard let options = FirebaseOptions.defaultOptions() else {
            FileHandle.standardError.write(
                Data(
                    "FirebaseApp.configure(): no readable GoogleService-Info.plist in the main bundle or the working directory\n"
                        .utf8))
            return
        }
        configure(options: options)
    }

    /// Configures the default app, once. A second call is refused with a
    /// line on standard error and the first configuration stays (Firebase
    /// raises an exception there); to replace it, ``delete()`` it first.
    public static func configure(options: FirebaseOptions) {
        configure(name: defaultAppName, options: options)
    }

    /// Configures an app with a name, for several projects or tenants in one
    /// process; once per name, as ``configure(options:)``.
    public static func configure(name: String, options: FirebaseOptions) {
        let app = FirebaseApp(name: name, options: options)
        let added = registry.withLock { apps in
            guard apps[name] == nil else { return false }
            apps[name] = app
            return true
        }
        guard added else {
            FileHandle.standardError.write(Data((alreadyConfiguredMessage(name: name) + "\n").utf8))
            return
        }
        Auth.forget(appNamed: name)
    }

    /// What a second `configure` of the same app says: which call, why it
    /// did nothing, and the two ways to do what was meant.
    static func alreadyConfiguredMessage(name: String) -> String {
        let app =
            name == defaultAppName ? "the default app" : "the app named '\(LogSafeText.escaping(name, limit: 64))'"
        return
            "FirebaseApp.configure: \(app) is already configured, so this call changes nothing (Firebase raises an exception here): "
            + "configure it once at startup, or delete() it first to replace it"
    }

    /// The default app, if configured.
    public static func app() -> FirebaseApp? { app(name: defaultAppName) }

    /// The app configured under `name`, if any.
    public static func app(name: String) -> FirebaseApp? { registry.current[name] }

    /// Removes this app (and its cached `Auth`).
    public func delete() {
        FirebaseApp.registry.withLock { apps in
            if apps[name] === self { apps[name] = nil }
        }
        Auth.forget(appNamed: name)
    }
}
