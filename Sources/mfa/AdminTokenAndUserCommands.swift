#if Tools
import ArgumentParser
import Foundation
import IdentityAdmin
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient

// `mfa admin verify-token` and `mfa admin users …`, beside the config
// commands of AdminCommand.swift.
extension AdminCommand {
    /// `mfa admin verify-token`: the checks a server makes on a client's ID token.
    struct VerifyToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-token",
            abstract: "Verify an ID token; print its claims as JSON, or exit 1 with the reason it is refused.",
            discussion:
                "Read the token from standard input (the default, or '-') to keep it out of the process list.")

        @OptionGroup var target: AdminTarget

        @Argument(help: "The ID token, or '-' (the default) to read it from standard input.")
        var token: String = "-"

        @Flag(help: "Also look the user up: refuse a revoked, disabled or deleted account.")
        var checkRevoked = false

        @Flag(help: "Refuse a sign-in that used no second factor.")
        var requireSecondFactor = false

        func run() async throws {
            let text: String
            if token == "-" {
                let input = try BoundedInput.standardInput(holding: "an ID token")
                text = String(decoding: input, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            } else {
                text = token
            }
            guard !text.isEmpty else {
                throw ValidationError("no token given (pass it as the argument or on standard input)")
            }
            let decoded = try await target.auth().verifyIDToken(text, checkRevoked: checkRevoked)
            if requireSecondFactor { try decoded.requireSecondFactor() }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(decoded.claims), as: UTF8.self))
        }
    }

    /// `mfa admin users …`: help a user who lost an authenticator.
    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "users",
            abstract:
                "List users, see a user's factors, remove them, end the user's sessions, issue recovery codes, import users.",
            subcommands: [Get.self, List.self, Unenroll.self, Revoke.self, RecoveryCodes.self, Import.self])

        /// A user as JSON: uid, email, flags, and the enrolled factors.
        static func render(_ user: UserRecord) -> String {
            json(object(user))
        }

        static func json(_ value: Any) -> String {
            let data =
                (try? JSONSerialization.data(
                    withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
                ?? Data("{}".utf8)
            return String(decoding: data, as: UTF8.self)
        }

        static func object(_ user: UserRecord) -> [String: Any] {
            var object: [String: Any] = [
                "uid": user.uid, "emailVerified": user.emailVerified, "disabled": user.disabled,
            ]
            if let email = user.email { object["email"] = email }
            if let tenant = user.tenantID { object["tenantId"] = tenant }
            if let time = user.tokensValidAfterTime {
                object["tokensValidAfterTime"] = ISO8601DateFormatter().string(from: time)
            }
            object["enrolledFactors"] = user.multiFactor.enrolledFactors.map { factor -> [String: Any] in
                var entry: [String: Any] = ["uid": factor.uid, "factorId": factor.factorID]
                if let name = factor.displayName { entry["displayName"] = name }
                if let time = factor.enrollmentTime {
                    entry["enrollmentTime"] = ISO8601DateFormatter().string(from: time)
                }
                return entry
            }
            if let claims = user.customClaims, let data = try? JSONEncoder().encode(claims),
                let value = try? JSONSerialization.jsonObject(with: data)
            {
                object["customClaims"] = value
            }
            return object
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "Print every user (uid order) as a JSON array; progress goes to standard error.")

            @OptionGroup var target: AdminTarget

            @Option(help: "Users fetched per request, 1 to 1000.")
            var pageSize = 1000

            @Flag(help: "Only users with at least one second factor.")
            var withFactors = false

            func validate() throws {
                guard (1...BaseAuth.maximumUsersPageSize).contains(pageSize) else {
                    throw ValidationError("--page-size must be 1 to \(BaseAuth.maximumUsersPageSize)")
                }
            }

            func run() async throws {
                var users: [[String: Any]] = []
                var seen = 0
                for try await user in try target.auth().allUsers(pageSize: pageSize) {
                    seen += 1
                    if seen % pageSize == 0 { FileHandle.standardError.write(Data("listed \(seen) users…\n".utf8)) }
                    if withFactors && user.multiFactor.enrolledFactors.isEmpty { continue }
                    users.append(Users.object(user))
                }
                print(Users.json(users))
            }
        }

        struct Get: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "get", abstract: "Print a user and the enrolled factors as JSON.")

            @OptionGroup var target: AdminTarget

            @Option(help: "The user's uid.")
            var uid: String?

            @Option(help: "The user's email address.")
            var email: String?

            func validate() throws {
                guard (uid == nil) != (email == nil) else {
                    throw ValidationError("give exactly one of --uid and --email")
                }
                try InputCheck.identifier(uid, "--uid")
                try InputCheck.identifier(email, "--email")
            }

            func run() async throws {
                let auth = try target.auth()
                let user =
                    if let uid { try await auth.getUser(uid: uid) } else {
                        try await auth.getUser(email: email ?? "")
                    }
                print(Users.render(user))
            }
        }

        struct Unenroll: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "unenroll",
                abstract: "Remove one factor (--factor) or all (--all) of a user; prints the user.")

            @OptionGroup var target: AdminTarget

            @Option(help: "The user's uid.")
            var uid: String

            @Option(help: "The uid of the factor to remove.")
            var factor: String?

            @Flag(help: "Remove every factor.")
            var all = false

            func validate() throws {
                try InputCheck.identifier(uid, "--uid")
                try InputCheck.identifier(factor, "--factor")
                guard (factor == nil) != !all else {
                    throw ValidationError("give exactly one of --factor and --all")
                }
            }

            func run() async throws {
                let auth = try target.auth()
                var keep: [EnrolledFactor] = []
                if let factor {
                    let user = try await auth.getUser(uid: uid)
                    guard user.multiFactor.enrolledFactors.contains(where: { $0.uid == factor }) else {
                        throw ValidationError("the user has no factor '\(factor)'")
                    }
                    keep = user.multiFactor.enrolledFactors.filter { $0.uid != factor }
                }
                print(Users.render(try await auth.updateUser(uid, UpdateUserRequest(enrolledFactors: keep))))
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "revoke",
                abstract:
                    "End every session of a user: refresh tokens stop working, earlier ID tokens fail --check-revoked."
            )

            @OptionGroup var target: AdminTarget

            @Option(help: "The user's uid.")
            var uid: String

            func validate() throws {
                try InputCheck.identifier(uid, "--uid")
            }

            func run() async throws {
                try await target.auth().revokeRefreshTokens(uid: uid)
                print(#"{"revoked": true}"#)
            }
        }
    }
}
#endif
