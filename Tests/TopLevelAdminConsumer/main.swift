// A small admin tool written as many are: top-level code in a `main.swift`,
// no `@main` type. `IdentityAdminTests` runs it against an emulator and
// checks what it printed.
//
// With a completion twin whose completion defaults to nil, the line marked
// below would compile to that twin (the compiler only warns: "no 'async'
// operations occur within 'await' expression"), `user` would be `()`, and
// the lookup would run unawaited. IdentityAdmin's twins take a required
// completion, so the async method is the only match.
import Foundation
import IdentityAdmin
import IdentityToolkit

let environment = ProcessInfo.processInfo.environment
let email = CommandLine.arguments.dropFirst().first ?? ""
let admin = IdentityAdmin(projectID: environment["PROJECT_ID"] ?? "demo-mfa", credential: EmulatorOwnerCredential())
let user = try await admin.getUser(email: email)   // the line the trap was on
print("found \(user)")
