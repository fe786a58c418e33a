package import Foundation

extension Duration {
    /// The duration in seconds, fractions included: what `Date` arithmetic
    /// takes. The package's one conversion, in the module every other one
    /// imports.
    package var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
