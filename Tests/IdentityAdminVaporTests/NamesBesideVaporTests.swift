import Foundation
import IdentityOTP
import IdentityOTPFormats
import Testing
import Vapor

/// A Vapor app imports Vapor and our OTP modules at once: Vapor exports
/// `TOTP`, `HOTP`, `Base32` and a protocol `OTP`, so the bare names are
/// ambiguous there, and a module named `OTP` could not be named either (the
/// protocol hides it). Our modules' names (`IdentityOTP`, `IdentityOTPFormats`)
/// qualify ours; this file compiles only while they do.
@Suite struct NamesBesideVaporTests {
    @Test func ourTOTPTypesAreNamedByTheirModule() throws {
        let key = try IdentityOTPFormats.Base32.decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        let ours = try IdentityOTP.TOTP(key: key, digits: 8)
        #expect(try ours.code(at: 59) == "94287082")
        #expect(IdentityOTP.HOTP.self != Vapor.HOTP.self)
        let theirs = Vapor.TOTP(key: SymmetricKey(data: key), digest: .sha1, digits: .eight, interval: 30)
        #expect(theirs.generate(time: Date(timeIntervalSince1970: 59)) == "94287082")
    }
}
