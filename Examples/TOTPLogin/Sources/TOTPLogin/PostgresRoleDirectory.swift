import Foundation
import Logging
import PostgresNIO
import TOTPLoginApp

/// The roles as a table every instance shares (`totplogin_roles`: one row
/// per address, lower-cased), which an administrator edits with SQL; the
/// `roles` setting's entries are written into it at start.
struct PostgresRoleDirectory: RoleDirectory {
    let client: PostgresClient
    let logger: Logger

    /// Creates the table when missing and writes `seed` into it (idempotent;
    /// every instance runs it at start).
    func migrate(seed: [String: String]) async throws {
        try await client.query(
            "CREATE TABLE IF NOT EXISTS totplogin_roles (email text PRIMARY KEY, role text NOT NULL)", logger: logger)
        for (email, role) in seed {
            try await client.query(
                """
                INSERT INTO totplogin_roles (email, role) VALUES (\(email.lowercased()), \(role)) ON CONFLICT (email) DO UPDATE SET role = EXCLUDED.role
                """, logger: logger)
        }
    }

    func role(forEmail email: String) async throws -> String? {
        let rows = try await client.query(
            "SELECT role FROM totplogin_roles WHERE email = \(email.lowercased())", logger: logger)
        for try await role in rows.decode(String.self) { return role }
        return nil
    }
}
