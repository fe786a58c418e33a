/// Comparison of secrets in time that does not depend on where (or whether)
/// they differ: the one home for the package's password, digest and form
/// token checks. Package-visible: not API.
package enum ConstantTime {
    /// Whether `lhs` and `rhs` hold the same bytes; every byte is compared
    /// when the lengths match (a length mismatch returns at once: lengths
    /// are not the secret here).
    package static func equal<L: Collection<UInt8>, R: Collection<UInt8>>(_ lhs: L, _ rhs: R) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
