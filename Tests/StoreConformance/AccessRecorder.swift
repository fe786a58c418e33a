public import Configuration
import Foundation

/// Every access event a configuration reader reports, as the text an
/// access log writes: what the stores' and the key ring's configuration
/// tests search for a secret.
public final class ConfigurationAccessRecorder: AccessReporter, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    public init() {}

    /// The events so far, as text.
    public var lines: [String] { lock.withLock { recorded } }

    public func report(_ event: AccessEvent) { lock.withLock { recorded.append("\(event)") } }
}
