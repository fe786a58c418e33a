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
/// let result = try await RequestLogger.withValue(context.logger) {
///     try await recovery.recover(proof, code: code)
/// }
/// ```
///
/// Where it is not set, each component logs to the logger it was given.
public enum RequestLogger {
    @TaskLocal private static var stored: Logger?

    /// The serving request's logger, if any.
    public static var current: Logger? { stored }

    /// The serving request's logger, else `fallback` (the component's own).
    public static func or(_ fallback: Logger) -> Logger { stored ?? fallback }

    /// Runs `operation` with `logger` as the serving request's logger (for
    /// it and every task it starts).
    public static func withValue<Result>(
        _ logger: Logger, isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $stored.withValue(logger, operation: operation, isolation: isolation)
    }
}
