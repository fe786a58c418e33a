import Foundation
import IdentityToolkit
import Testing

/// RFC 9470's challenge, as servers write it and clients read it.
@Suite struct StepUpChallengeTests {
    @Test func whatIsWrittenIsReadBack() {
        for challenge in [
            StepUpChallenge(requiresSecondFactor: true, reason: "a sign-in with the second factor is required"),
            StepUpChallenge(
                requiresSecondFactor: false, maximumAuthenticationAge: .seconds(300),
                reason: "a more recent sign-in is required"),
            StepUpChallenge(requiresSecondFactor: true, maximumAuthenticationAge: .zero, reason: ""),
        ] {
            #expect(StepUpChallenge(wwwAuthenticate: challenge.headerValue) == challenge, "\(challenge.headerValue)")
        }
        #expect(
            StepUpChallenge(requiresSecondFactor: true, maximumAuthenticationAge: .seconds(60), reason: "again")
                .headerValue
                == #"Bearer error="insufficient_user_authentication", error_description="again", acr_values="firebase_second_factor", max_age=60"#
        )
    }

    /// The reason is kept to what a quoted string holds without escapes.
    @Test func theReasonCannotBreakTheHeader() throws {
        let read = try #require(
            StepUpChallenge(
                wwwAuthenticate:
                    #"Bearer error="insufficient_user_authentication", error_description="say \"hi\" \\ now""#))
        #expect(read.reason == "say hi  now")
        #expect(StepUpChallenge(wwwAuthenticate: read.headerValue) == read, "what was read can be written back")
        let challenge = StepUpChallenge(requiresSecondFactor: false, reason: "say \"hi\"\\\r\nX-Injected: 1 é")
        #expect(challenge.reason == "say hiX-Injected: 1 ")
        #expect(!challenge.headerValue.contains("\r") && !challenge.headerValue.contains("\n"))
    }

    /// RFC 9470 §3's own example, other challenges beside it, any case of
    /// the scheme and parameter names, and tokens for values.
    @Test(arguments: [
        (
            #"Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="myACR""#,
            false, nil as Int64?
        ),
        (#"Basic realm="x", Bearer error="insufficient_user_authentication", max_age=5"#, false, 5),
        (
            #"Basic realm="x",Bearer realm="api",error="insufficient_user_authentication",acr_values="other firebase_second_factor""#,
            true, nil
        ),
        (#"bearer ERROR=insufficient_user_authentication, MAX_AGE=300"#, false, 300),
        (#"Bearer error="insufficient_user_authentication", max_age="120""#, false, 120),
        (#"Bearer error="insufficient_user_authentication", max_age=-5"#, false, nil),
        (#"Bearer error="insufficient_user_authentication", max_age=1.5"#, false, nil),
        (#"Bearer error="insufficient_user_authentication", error_description="quoted \"inner\" text""#, false, nil),
    ])
    func challengesAreFoundAmongOthers(header: String, secondFactor: Bool, maxAge: Int64?) throws {
        let challenge = try #require(StepUpChallenge(wwwAuthenticate: header))
        #expect(challenge.requiresSecondFactor == secondFactor)
        #expect(challenge.maximumAuthenticationAge == maxAge.map { .seconds($0) })
    }

    /// Other errors, other schemes and broken syntax are not step-up challenges.
    @Test(arguments: [
        "", "Bearer", #"Bearer error="invalid_token""#, #"Basic error="insufficient_user_authentication""#,
        #"Bearer error="insufficient_user_authentication"#, #"Bearer error=, max_age=5"#,
        "Bearer error=\"insufficient_user_authentication\\",
        String(repeating: "Bearer a=b, ", count: 1_000) + #"Bearer error="insufficient_user_authentication""#,
    ])
    func otherHeadersAreNotChallenges(header: String) {
        #expect(StepUpChallenge(wwwAuthenticate: header) == nil)
    }
}
