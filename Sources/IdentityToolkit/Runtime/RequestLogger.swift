public import Logging

/// The logger of the request the current task serves, so that the lines this
/// package writes on a request's behalf (a REST call, a key fetch, a
/// verification refused, a recovery) carry that request's metadata: its id,
/// its route, whatever the app's framework puts there.
///
/// The Hummingbird and Vapor middlewares set it for the rest of each request
/// they pass on. An app sets it around its own calls:
///
/// ```swift
/// let result = try await RequestLogger.$current.withValue(context.logger) {
///     try await recovery.recover(proof, code: code)
/// }
/// ```
///
/// Where it is not set, each component logs to the logger it was given.
public enum RequestLogger {
    /// The serving request's logger, if any.
    @TaskLocal public static var current: Logger?

    /// The serving request's logger, else `fallback` (the component's own).
    @inlinable
    public static func or(_ fallback: Logger) -> Logger { current ?? fallback }
}
