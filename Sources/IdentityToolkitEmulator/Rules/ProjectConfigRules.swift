#if Emulator
import Foundation
import IdentityToolkit
import IdentitySupport

/// A project's configuration (`GET/PATCH /v2/projects/{p}/config`): its
/// multi-factor settings, duplicate addresses, email privacy and blocking
/// functions, with update masks as Google documents them (no mask: every
/// field replaced, an absent one by production's default).
enum ProjectConfigRules {
    typealias Path = ProjectConfig.FieldPath

    /// The configuration as the API shows it.
    static func config(_ state: EmulatorState, project: String, _ context: RuleContext) -> ProjectConfig {
        let stored = state.projects[project] ?? ProjectState()
        return ProjectConfig(
            name: "projects/\(project)/config", mfa: stored.mfa,
            signIn: SignInConfig(allowDuplicateEmails: stored.allowDuplicateEmails),
            emailPrivacyConfig: EmailPrivacyConfig(
                enableImprovedEmailPrivacy: state.improvedEmailPrivacy(of: project, context)),
            blockingFunctions: stored.blockingFunctions)
    }

    /// The mask paths this API takes: the top-level fields and their fields.
    static let settable: [String: [String]] = [
        Path.mfa: [
            MultiFactorAuthConfig.FieldPath.state, MultiFactorAuthConfig.FieldPath.enabledProviders,
            MultiFactorAuthConfig.FieldPath.providerConfigs,
        ],
        Path.signIn: [SignInConfig.FieldPath.allowDuplicateEmails],
        Path.emailPrivacyConfig: [EmailPrivacyConfig.FieldPath.enableImprovedEmailPrivacy],
        Path.blockingFunctions: [
            BlockingFunctionsConfig.FieldPath.triggers, BlockingFunctionsConfig.FieldPath.forwardInboundCredentials,
            "\(BlockingFunctionsConfig.FieldPath.forwardInboundCredentials).\(BlockingFunctionCredentials.FieldPath.idToken)",
            "\(BlockingFunctionsConfig.FieldPath.forwardInboundCredentials).\(BlockingFunctionCredentials.FieldPath.accessToken)",
            "\(BlockingFunctionsConfig.FieldPath.forwardInboundCredentials).\(BlockingFunctionCredentials.FieldPath.refreshToken)",
        ],
    ]

    /// Applies the masked fields of `update`.
    static func update(
        _ state: inout EmulatorState, project: String, mask: String?, _ update: ProjectConfig,
        _ context: RuleContext
    ) throws {
        let paths = try paths(of: mask, ignoringUnknown: context.googleCompatible)
        func applies(_ top: String, _ field: String? = nil) -> Bool {
            guard let paths else { return true }
            return paths.contains(top) || field.map { paths.contains("\(top).\($0)") } ?? false
        }
        var stored = state.projects[project] ?? ProjectState()
        let mfaPaths = paths ?? [Path.mfa]
        stored.mfa = try TenantRules.merge(stored.mfa, update.mfa, paths: mfaPaths, prefix: Path.mfa)
        if paths == nil && update.mfa == nil { stored.mfa = nil }
        if applies(Path.signIn, SignInConfig.FieldPath.allowDuplicateEmails) {
            stored.allowDuplicateEmails = update.signIn?.allowDuplicateEmails ?? false
        }
        if applies(Path.emailPrivacyConfig, EmailPrivacyConfig.FieldPath.enableImprovedEmailPrivacy) {
            stored.improvedEmailPrivacy =
                update.emailPrivacyConfig?.enableImprovedEmailPrivacy ?? (paths == nil ? nil : false)
        }
        let credentials = BlockingFunctionsConfig.FieldPath.forwardInboundCredentials
        if applies(Path.blockingFunctions, BlockingFunctionsConfig.FieldPath.triggers) {
            let triggers = update.blockingFunctions?.triggers
            try checkTriggers(triggers, allowLinkLocal: context.allowLinkLocalTriggers)
            stored.blockingFunctions.triggers = triggers
        }
        if applies(Path.blockingFunctions, credentials) {
            stored.blockingFunctions.forwardInboundCredentials = update.blockingFunctions?.forwardInboundCredentials
        } else if let paths {
            let sent = update.blockingFunctions?.forwardInboundCredentials
            var forwarded = stored.blockingFunctions.forwardInboundCredentials ?? BlockingFunctionCredentials()
            typealias Field = BlockingFunctionCredentials.FieldPath
            if paths.contains("\(Path.blockingFunctions).\(credentials).\(Field.idToken)") {
                forwarded.idToken = sent?.idToken
            }
            if paths.contains("\(Path.blockingFunctions).\(credentials).\(Field.accessToken)") {
                forwarded.accessToken = sent?.accessToken
            }
            if paths.contains("\(Path.blockingFunctions).\(credentials).\(Field.refreshToken)") {
                forwarded.refreshToken = sent?.refreshToken
            }
            if forwarded != BlockingFunctionCredentials() {
                stored.blockingFunctions.forwardInboundCredentials = forwarded
            }
        }
        state.projects[project] = stored
    }

    /// The mask's paths, each a known field (nil: no mask, a full update);
    /// `ignoringUnknown` (Google-compatible mode) drops an unknown one.
    static func paths(of mask: String?, ignoringUnknown: Bool = false) throws -> [String]? {
        try InputRules.updateMaskPaths(mask, settable: settable, ignoringUnknown: ignoringUnknown)
    }

    /// Blocking functions as production checks them: known events, each
    /// with an absolute http(s) URI (`INVALID_BLOCKING_FUNCTION`).
    static func checkTriggers(_ triggers: [String: BlockingFunctionTrigger]?, allowLinkLocal: Bool) throws {
        for (event, trigger) in triggers ?? [:] {
            guard BlockingFunctionEvent.allKnownValues.contains(BlockingFunctionEvent(rawValue: event)) else {
                throw APIServerError.invalidBlockingFunction(
                    "\(LogSafeText.escaping(event, limit: 60)) is not a blocking function event")
            }
            guard let uri = trigger.functionUri, InputRules.isAbsoluteURI(uri) else {
                throw APIServerError.invalidBlockingFunction("\(event).functionUri must be an absolute http(s) URI")
            }
            try TriggerAddressRules.check(uri, field: "\(event).functionUri", allowLinkLocal: allowLinkLocal)
        }
    }

    /// The emulator's own project settings (`/emulator/v1/projects/{id}/config`):
    /// changes those the body names; the others stay.
    static func updateEmulatorSettings(
        _ state: inout EmulatorState, project: String, _ body: EmulatorProjectConfig, _ context: RuleContext
    ) throws -> EmulatorProjectConfig {
        if let allow = body.signIn?.allowDuplicateEmails {
            // Turning duplicates off is refused while some address has several accounts.
            if !allow, state.projects[project].map(hasDuplicateEmails) == true {
                throw APIServerError.invalidArgument(
                    "signIn.allowDuplicateEmails cannot be turned off while accounts share an address")
            }
            state.projects[project, default: ProjectState()].allowDuplicateEmails = allow
        }
        if let improved = body.emailPrivacyConfig?.enableImprovedEmailPrivacy {
            state.projects[project, default: ProjectState()].improvedEmailPrivacy = improved
        }
        return EmulatorExport.projectConfig(state, project: project, context)
    }

    private static func hasDuplicateEmails(_ project: ProjectState) -> Bool {
        ([project.accounts] + project.tenants.values.map(\.accounts)).contains { table in
            table.sortedByID.contains { user in user.email.map { table.users(email: $0).count > 1 } ?? false }
        }
    }
}
#endif
