import Foundation
import MultiFactorAuth
import Testing

/// Where a sign-in's error handling went.
enum SignInBranch {
    case signedIn
    case secondFactor(MultiFactorResolver?)
    case otherError(any Error)
}

/// The ways Firebase code tells "a second factor is required" from other
/// errors: the 10.x shapes (the seeds'), the Swift quickstarts' `NSError`
/// idiom, pattern matching, and the 11+ spellings. On Apple platforms each
/// selects the second-factor branch; these tests hold them to it on Linux.
enum CatchIdiom: String, CaseIterable, CustomStringConvertible {
    case catchAsNSError
    case catchAsAuthErrorCode
    case catchPattern
    case switchPatternOnError
    case switchOnNSErrorCode
    case rawValueInitializer
    case switchOnRawValueInitializer
    case conditionalCast
    case domainAndUserInfoKeys
    case completionOptionalNSError
    case completionConditionalCast

    var description: String { rawValue }

    /// Signs in with `email` and `password`, handling the error this idiom's way.
    func signIn(email: String, password: String) async -> SignInBranch {
        switch self {
        case .catchAsNSError:
            do {
                _ = try await Auth.auth().signIn(withEmail: email, password: password)
                return .signedIn
            } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
                return .secondFactor(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
            } catch {
                return .otherError(error)
            }
        case .catchAsAuthErrorCode:
            do {
                _ = try await Auth.auth().signIn(withEmail: email, password: password)
                return .signedIn
            } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
                return .secondFactor(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
            } catch {
                return .otherError(error)
            }
        case .catchPattern:
            do {
                _ = try await Auth.auth().signIn(withEmail: email, password: password)
                return .signedIn
            } catch AuthErrorCode.secondFactorRequired {
                return .secondFactor(nil) // A pattern binds no error: the branch, not the resolver.
            } catch {
                return .otherError(error)
            }
        case .switchPatternOnError:
            do {
                _ = try await Auth.auth().signIn(withEmail: email, password: password)
                return .signedIn
            } catch {
                switch error {
                case AuthErrorCode.secondFactorRequired:
                    return .secondFactor(
                        (error as NSError).userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
                default:
                    return .otherError(error)
                }
            }
        case .switchOnNSErrorCode:
            do {
                _ = try await Auth.auth().signIn(withEmail: email, password: password)
                return .signedIn
            } catch {
                let nsError = error as NSError
                switch nsError.code {
                case AuthErrorCode.secondFactorRequired.rawValue:
                    return .secondFactor(
                        nsError.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
                default:
                    return .otherError(error)
                }
            }
        case .rawValueInitializer:
            do {
                _ = try await Auth.auth().signIn(withEmail: email, password: password)
                return .signedIn
            } catch {
                let nsError = error as NSError
                if let code = AuthErrorCode(rawValue: nsError.code), code == .secondFactorRequired {
                    return .secondFactor(
                        nsError.userInfo[AuthErrors.userInfoMultiFactorResolverKey] as? MultiFactorResolver)
                }
                return .otherError(error)
            }
        case .switchOnRawValueInitializer:
            do {
                _ = try await Auth.auth().signIn(withEmail: email, password: password)
                return .signedIn
            } catch {
                let nsError = error as NSError
                switch AuthErrorCode(rawValue: nsError.code) {
                case .secondFactorRequired:
                    return .secondFactor(
                        nsError.userInfo[AuthErrors.userInfoMultiFactorResolverKey] as? MultiFactorResolver)
                default:
                    return .otherError(error)
                }
            }
        case .conditionalCast:
            do {
                _ = try await Auth.auth().signIn(withEmail: email, password: password)
                return .signedIn
            } catch {
                if let authError = error as? AuthErrorCode, authError == .secondFactorRequired {
                    return .secondFactor(
                        authError.userInfo[AuthErrors.userInfoMultiFactorResolverKey] as? MultiFactorResolver)
                }
                return .otherError(error)
            }
        case .domainAndUserInfoKeys:
            do {
                _ = try await Auth.auth().signIn(withEmail: email, password: password)
                return .signedIn
            } catch let error as NSError
                where error.domain == AuthErrors.domain
                && error.userInfo[AuthErrors.userInfoNameKey] as? String == "ERROR_SECOND_FACTOR_REQUIRED"
            {
                return .secondFactor(error.userInfo[AuthErrors.userInfoMultiFactorResolverKey] as? MultiFactorResolver)
            } catch {
                return .otherError(error)
            }
        case .completionOptionalNSError:
            return await withCheckedContinuation { continuation in
                Auth.auth().signIn(withEmail: email, password: password) { _, error in
                    if let error = error as NSError?, error.code == AuthErrorCode.secondFactorRequired.rawValue {
                        continuation.resume(
                            returning: .secondFactor(
                                error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver))
                    } else if let error {
                        continuation.resume(returning: .otherError(error))
                    } else {
                        continuation.resume(returning: .signedIn)
                    }
                }
            }
        case .completionConditionalCast:
            return await withCheckedContinuation { continuation in
                Auth.auth().signIn(withEmail: email, password: password) { _, error in
                    if let error = error as? NSError, error.code == AuthErrorCode.secondFactorRequired.rawValue {
                        continuation.resume(
                            returning: .secondFactor(
                                error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver))
                    } else if let error {
                        continuation.resume(returning: .otherError(error))
                    } else {
                        continuation.resume(returning: .signedIn)
                    }
                }
            }
        }
    }
}

/// In the doc samples' suite: they share `Auth.auth()`, so they run one at a time.
extension DocSampleTests {
    /// A user with TOTP signs in: every idiom reaches the second-factor
    /// branch with a resolver that completes the sign-in; a wrong password
    /// reaches every idiom's other branch, as the error it is.
    @Test(arguments: CatchIdiom.allCases)
    func everyIdiomSelectsTheSecondFactorBranch(idiom: CatchIdiom) async throws {
        try await DocSampleEnvironment.with { environment in
            let user = try #require(Auth.auth().currentUser)
            try await asyncEnrollmentSample(currentUser: user)
            try #require(user.multiFactor.enrolledFactors.count == 1)
            try Auth.auth().signOut()

            guard
                case .secondFactor(let found) = await idiom.signIn(
                    email: environment.email, password: environment.password)
            else {
                Issue.record("\(idiom) missed the second-factor branch")
                return
            }
            if let resolver = found {
                let hint = try #require(resolver.hints.first)
                let result = try await resolver.resolveSignIn(
                    with: TOTPMultiFactorGenerator.assertionForSignIn(
                        withEnrollmentID: hint.uid, oneTimePassword: oneTimePassword))
                #expect(result.user.uid == user.uid)
                try Auth.auth().signOut()
            } else {
                // Only a pattern catch binds no error, so it has no resolver to give.
                #expect(idiom == .catchPattern, "\(idiom) lost the resolver")
            }

            guard case .otherError(let error) = await idiom.signIn(email: environment.email, password: "wrong password")
            else {
                Issue.record("\(idiom) took a wrong password for a second factor")
                return
            }
            // Production (email enumeration protection) answers INVALID_LOGIN_CREDENTIALS.
            switch error {
            case AuthErrorCode.invalidCredential: break
            default: Issue.record("\(idiom): \(error)")
            }
            #expect(Auth.auth().currentUser == nil)
        }
    }
}
