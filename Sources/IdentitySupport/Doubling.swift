/// `first` doubled `doublings` times, at most `cap`: the package's one rule
/// for waits that grow with failures (TOTP lock-outs, key fetches after a
/// failed one, the account-lookup breaker).
package func doubled(_ first: Double, times doublings: Int, atMost cap: Double) -> Double {
    min(first * Double(sign: .plus, exponent: min(max(doublings, 0), 62), significand: 1), cap)
}
