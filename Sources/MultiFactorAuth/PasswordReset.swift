import Foundation
import IdentityToolkit

/// The password reset, as Firebase's `Auth` has it: the email, then the
/// code it carries, applied by Firebase's page or by the app's own handler
/// (Firebase's "custom email action handler").
extension Auth {
    /// Sends a password-reset email to `email` (`PASSWORD_RESET`).
    /// - Throws: `userNotFound` for an address without an account when the
    ///   project does not protect against email enumeration (with the
    ///   protection on, production answers alike either way), `invalidEmail`,
    ///   `tooManyRequests`.
    public func sendPasswordReset(withEmail email: String) async throws {
        let backend = try context.backend()
        let tenant = context.tenantID
        _ = try await AuthErrorMapping.perform {
            try await backend.accounts.sendOobCode(
                GetOobCodeRequest(requestType: .passwordReset, email: email, tenantId: tenant))
        }
    }

    /// The address a password-reset code is for, without applying it.
    /// - Throws: `invalidActionCode` or `expiredActionCode`.
    public func verifyPasswordResetCode(_ code: String) async throws -> String {
        let backend = try context.backend()
        let tenant = context.tenantID
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.resetPassword(ResetPasswordRequest(oobCode: code, tenantId: tenant))
        }
        guard response.requestType == nil || response.requestType == .passwordReset, let email = response.email else {
            throw AuthErrorCode(.invalidActionCode, message: "The code is not a password-reset code.")
        }
        return email
    }

    /// Sets a new password with a password-reset code; the account's other
    /// sessions end, as Identity Platform does at a reset.
    /// - Throws: `invalidActionCode`, `expiredActionCode`, `weakPassword`.
    public func confirmPasswordReset(withCode code: String, newPassword: String) async throws {
        let backend = try context.backend()
        let tenant = context.tenantID
        _ = try await AuthErrorMapping.perform {
            try await backend.accounts.resetPassword(
                ResetPasswordRequest(oobCode: code, newPassword: newPassword, tenantId: tenant))
        }
    }
}
