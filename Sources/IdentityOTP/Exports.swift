// And the expiring key-value store the shared stores are built on
// (`ExpiringStateTOTPVerificationStore`), with `InMemoryStoreFullError`.
@_exported import IdentityKeyValueStore
// `import IdentityOTP` brings the crypto-free formats too (Base32, otpauth:// URIs,
// QR codes, `HashAlgorithm`), which live in `IdentityOTPFormats` so that code that
// only needs them (MultiFactorAuth) does not build swift-crypto.
@_exported import IdentityOTPFormats
