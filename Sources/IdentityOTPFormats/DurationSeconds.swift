extension Duration {
    /// The duration in seconds, fractions included (a `TimeInterval`, what
    /// `Date` arithmetic takes). The package's one conversion, in the module
    /// every other one imports; written over the standard library alone.
    package var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
