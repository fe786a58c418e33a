extension Duration {
    /// The duration in seconds, fractions included (a `TimeInterval`, what
    /// `Date` arithmetic takes): the package's one conversion.
    package var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
