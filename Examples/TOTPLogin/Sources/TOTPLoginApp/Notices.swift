import Foundation
import HTTPTypes
import Hummingbird
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityOTP
import IdentityOTPFormats
import Logging
import MultiFactorAuth

/// Why the sign-in page is shown, as a query value (never free text from the URL).
enum LoginNotice: String {
    case signedOut = "signed-out"
    case sessionsEnded = "sessions-ended"
    case expired
    case invalidSession = "invalid-session"
    case secondFactorRequired = "second-factor"
    case recentSignInRequired = "recent-sign-in"
    case passwordReset = "password-reset"

    var text: String {
        switch self {
        case .signedOut: "You are signed out."
        case .sessionsEnded: "Your sessions ended (signed out everywhere, or the account changed). Sign in again."
        case .expired: "Your session expired. Sign in again."
        case .invalidSession: "Your session is not valid. Sign in again."
        case .secondFactorRequired: "Your account has a second factor: sign in with it to continue."
        case .recentSignInRequired: "Changing your second factors needs a recent sign-in. Sign in again."
        case .passwordReset: "Your password was changed and every session ended. Sign in with the new one."
        }
    }
}

/// What the account page confirms, as a query value.
/// Why the enrollment page was opened.
enum EnrollNotice: String {
    case recovered, required

    var text: String {
        switch self {
        case .recovered: "Your lost authenticator was removed and every other session ended. Add your new one now."
        case .required: "This account needs an authenticator app now: add one to go on."
        }
    }
}

enum AccountNotice: String {
    case enrolled, unenrolled

    var text: String {
        switch self {
        case .enrolled: "Your authenticator app was added. Next time, sign-in asks for its code."
        case .unenrolled: "The second factor was removed."
        }
    }
}
