public import Foundation
import IdentityToolkit

/// Whether multi-factor authentication (or one provider) is on. Only
/// `ENABLED` and `DISABLED` are accepted, as firebase-admin-node accepts.
public enum MultiFactorConfigState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Switched on: users may enroll and must use their factors.
    case enabled = "ENABLED"
    /// Switched off.
    case disabled = "DISABLED"
}

/// TOTP settings: how many time steps on either side of now a code is still accepted.
public struct TOTPMultiFactorProviderConfig: Sendable, Hashable {
    /// 0 to 10; nil leaves the server's default (5).
    public var adjacentIntervals: Int?

    /// TOTP settings; nil keeps the server's default window.
    public init(adjacentIntervals: Int? = nil) {
        self.adjacentIntervals = adjacentIntervals
    }
}

/// Settings of one second-factor provider (TOTP).
public struct MultiFactorProviderConfig: Sendable, Hashable {
    /// Whether the provider is on.
    public var state: MultiFactorConfigState
    /// Required: today the only provider with settings.
    public var totpProviderConfig: TOTPMultiFactorProviderConfig?

    /// A provider's settings.
    public init(state: MultiFactorConfigState, totpProviderConfig: TOTPMultiFactorProviderConfig?) {
        self.state = state
        self.totpProviderConfig = totpProviderConfig
    }
}

/// The multi-factor settings of a project or tenant, shaped like
/// firebase-admin-node's `MultiFactorConfig`.
public struct MultiFactorConfig: Sendable, Hashable {
    /// SMS multi-factor on or off.
    public var state: MultiFactorConfigState?
    /// SMS providers: `["phone"]`.
    public var factorIds: [String]?
    /// Other providers: TOTP.
    public var providerConfigs: [MultiFactorProviderConfig]?

    /// Settings with the fields that are not nil.
    public init(
        state: MultiFactorConfigState? = nil, factorIds: [String]? = nil,
        providerConfigs: [MultiFactorProviderConfig]? = nil
    ) {
        self.state = state
        self.factorIds = factorIds
        self.providerConfigs = providerConfigs
    }

    /// TOTP on, with `adjacentIntervals` steps of tolerance.
    public static func totpEnabled(adjacentIntervals: Int? = nil) -> MultiFactorConfig {
        MultiFactorConfig(providerConfigs: [
            MultiFactorProviderConfig(
                state: .enabled, totpProviderConfig: TOTPMultiFactorProviderConfig(adjacentIntervals: adjacentIntervals)
            )
        ])
    }

    /// TOTP off.
    public static var totpDisabled: MultiFactorConfig {
        MultiFactorConfig(providerConfigs: [
            MultiFactorProviderConfig(state: .disabled, totpProviderConfig: TOTPMultiFactorProviderConfig())
        ])
    }

    /// Checks the rules firebase-admin-node checks before any request.
    /// - Parameter field: How the config is named in messages (`multiFactorConfig`).
    public func validate(field: String = "multiFactorConfig") throws(AdminValidationError) {
        for (index, id) in (factorIds ?? []).enumerated() where id != SecondFactorID.phone.rawValue {
            throw AdminValidationError(
                field: "\(field).factorIds[\(index)]", message: "must be \"phone\", not \"\(id)\"")
        }
        for (index, provider) in (providerConfigs ?? []).enumerated() {
            let path = "\(field).providerConfigs[\(index)]"
            guard let totp = provider.totpProviderConfig else {
                throw AdminValidationError(field: "\(path).totpProviderConfig", message: "is required")
            }
            if let intervals = totp.adjacentIntervals,
                !IdentityPlatformLimits.totpAdjacentIntervals.contains(Int(intervals))
            {
                throw AdminValidationError(
                    field: "\(path).totpProviderConfig.adjacentIntervals", message: "must be an integer from 0 to 10")
            }
        }
    }

    /// Reads a config from JSON as firebase-admin-node's callers write it,
    /// refusing unknown keys and wrong types with a message naming the field.
    public init(json: Data, field: String = "multiFactorConfig") throws(AdminValidationError) {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: json)
        } catch {
            throw AdminValidationError(field: field, message: "is not valid JSON")
        }
        try self.init(value: value, field: field)
    }

    init(value: JSONValue, field: String) throws(AdminValidationError) {
        let dictionary = try JSONFields(value, field: field, allowed: ["state", "factorIds", "providerConfigs"])
        self.init()
        state = try dictionary.state("state")
        if let ids = try dictionary.array("factorIds") {
            factorIds = try ids.enumerated().map { index, value throws(AdminValidationError) in
                guard case .string(let id) = value else {
                    throw AdminValidationError(field: "\(field).factorIds[\(index)]", message: "must be a string")
                }
                return id
            }
        }
        if let providers = try dictionary.array("providerConfigs") {
            providerConfigs = try providers.enumerated().map { index, value throws(AdminValidationError) in
                let path = "\(field).providerConfigs[\(index)]"
                let provider = try JSONFields(value, field: path, allowed: ["state", "totpProviderConfig"])
                guard let state = try provider.state("state") else {
                    throw AdminValidationError(field: "\(path).state", message: "is required")
                }
                var totp: TOTPMultiFactorProviderConfig?
                if let totpValue = provider.value("totpProviderConfig") {
                    let fields = try JSONFields(
                        totpValue, field: "\(path).totpProviderConfig", allowed: ["adjacentIntervals"])
                    totp = TOTPMultiFactorProviderConfig(
                        adjacentIntervals: try fields.integer("adjacentIntervals", range: 0...10))
                }
                return MultiFactorProviderConfig(state: state, totpProviderConfig: totp)
            }
        }
        try validate(field: field)
    }

    /// The wire form (`MultiFactorAuthConfig` of the spec).
    var wire: MultiFactorAuthConfig {
        MultiFactorAuthConfig(
            state: state.map { $0 == .enabled ? MfaState.enabled : .disabled },
            enabledProviders: factorIds.map { $0.map { _ in MfaProvider.phoneSms } },
            providerConfigs: providerConfigs?.map { provider in
                MfaProviderConfig(
                    state: provider.state == .enabled ? MfaProviderState.enabled : .disabled,
                    totpProviderConfig: provider.totpProviderConfig.map {
                        TotpMfaProviderConfig(adjacentIntervals: $0.adjacentIntervals.map(Int32.init))
                    })
            })
    }

    /// From the wire form; values outside the admin shape are dropped
    /// (MANDATORY reads as ENABLED, unspecified as nil).
    init(wire: MultiFactorAuthConfig) {
        func state(_ value: MfaState?) -> MultiFactorConfigState? {
            switch value {
            case .enabled?, .mandatory?: return .enabled
            case .disabled?: return .disabled
            default: return nil
            }
        }
        func state(_ value: MfaProviderState?) -> MultiFactorConfigState {
            switch value {
            case .enabled?, .mandatory?: return .enabled
            default: return .disabled
            }
        }
        self.init(
            state: state(wire.state),
            // No SMS provider is no factor ids, whether the server lists none or none at all.
            factorIds: wire.enabledProviders.flatMap { providers in
                let ids = providers.filter { $0 == .phoneSms }.map { _ in SecondFactorID.phone.rawValue }
                return ids.isEmpty ? nil : ids
            },
            providerConfigs: wire.providerConfigs?.map { provider in
                MultiFactorProviderConfig(
                    state: state(provider.state),
                    totpProviderConfig: provider.totpProviderConfig.map {
                        TOTPMultiFactorProviderConfig(adjacentIntervals: $0.adjacentIntervals.map(Int.init))
                    })
            })
    }

    /// The update mask of the fields set, below `prefix` (`mfa` or `mfaConfig`); arrays are leaves.
    func updateMask(prefix: String) -> [String] {
        var paths: [String] = []
        if state != nil { paths.append(prefix + "." + MultiFactorAuthConfig.FieldPath.state) }
        if factorIds != nil { paths.append(prefix + "." + MultiFactorAuthConfig.FieldPath.enabledProviders) }
        if providerConfigs != nil { paths.append(prefix + "." + MultiFactorAuthConfig.FieldPath.providerConfigs) }
        return paths
    }
}

/// Typed reads from a JSON object, with field-naming errors.
struct JSONFields {
    let fields: [String: JSONValue]
    let field: String

    init(_ value: JSONValue, field: String, allowed: Set<String>) throws(AdminValidationError) {
        guard case .object(let fields) = value else {
            throw AdminValidationError(field: field, message: "must be an object")
        }
        for key in fields.keys.sorted() where !allowed.contains(key) {
            throw AdminValidationError(field: "\(field).\(key)", message: "is not a valid field")
        }
        self.fields = fields
        self.field = field
    }

    /// The value under `key`; nil when absent or null.
    func value(_ key: String) -> JSONValue? {
        guard let value = fields[key] else { return nil }
        if case .null = value { return nil }
        return value
    }

    func state(_ key: String) throws(AdminValidationError) -> MultiFactorConfigState? {
        guard let value = fields[key] else { return nil }
        guard case .string(let text) = value, let state = MultiFactorConfigState(rawValue: text) else {
            throw AdminValidationError(field: "\(field).\(key)", message: "must be \"ENABLED\" or \"DISABLED\"")
        }
        return state
    }

    func array(_ key: String) throws(AdminValidationError) -> [JSONValue]? {
        guard let value = fields[key] else { return nil }
        guard case .array(let array) = value else {
            throw AdminValidationError(field: "\(field).\(key)", message: "must be an array")
        }
        return array
    }

    /// An integer within `range`; a fraction, a string, a boolean or null is refused.
    func integer(_ key: String, range: ClosedRange<Int>) throws(AdminValidationError) -> Int? {
        guard let value = fields[key] else { return nil }
        guard case .number(let number) = value, let integer = Int(exactly: number), range.contains(integer) else {
            throw AdminValidationError(
                field: "\(field).\(key)", message: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return integer
    }
}
