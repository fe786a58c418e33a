/// `errors.yaml`: the `AuthErrorCode` cases and the server short-code table.
struct ErrorsSpec {
    struct Code {
        var name: SwiftName
        var code: Int
        var userInfoName: String
        var description: String
        var location: SourceLocation
    }

    /// One short code a server sends: its HTTP status, whether a detail
    /// follows it (`SHORT_CODE : detail`), and what a client makes of it:
    /// an error code, or `internal` with the reason it has none on purpose.
    struct ServerMapping {
        /// Whether the message carries a detail after the short code.
        enum Detail: String {
            case none, optional, required
        }

        var server: String
        /// The client's error code; nil with `internal`.
        var code: SwiftName?
        /// Why the client maps this code to its fallback on purpose.
        var internalReason: String?
        var status: Int
        var detail: Detail
        /// The `errors[].reason` a server puts beside it, if any.
        var reason: String?
        var location: SourceLocation
        /// The Swift name of the server's error: `USER_NOT_FOUND` → `userNotFound`.
        var swiftName: SwiftName
    }

    struct ReasonMapping {
        var prefix: String
        var code: SwiftName
        var location: SourceLocation
    }

    var file: String
    var domain: String
    var unknownServerCode: SwiftName
    var transportFailure: SwiftName
    var undecodableResponse: SwiftName
    var codes: [Code]
    var serverCodes: [ServerMapping]
    var reasons: [ReasonMapping]

    static func parse(_ root: YAMLValue, diagnostics: DiagnosticCollector) -> ErrorsSpec? {
        guard let reader = MappingReader(root, context: "the errors file", diagnostics: diagnostics) else { return nil }
        let domain = reader.string("domain", required: true) ?? ""
        let fallback = reader.mapping("fallback", required: true)
        func codeName(_ reader: MappingReader?, _ key: String, _ what: String) -> SwiftName? {
            guard let reader, let text = reader.string(key, required: true) else { return nil }
            return Naming.identifier(
                text, what, at: reader.raw(key)?.location ?? reader.location, diagnostics: diagnostics)
        }
        let unknown = codeName(fallback, "unknownServerCode", "fallback error code") ?? .placeholder
        let transport = codeName(fallback, "transportFailure", "fallback error code") ?? .placeholder
        let undecodable = codeName(fallback, "undecodableResponse", "fallback error code") ?? .placeholder
        fallback?.rejectUnknownKeys()
        var codes: [Code] = []
        for item in reader.list("codes", required: true) ?? [] {
            guard let entry = MappingReader(item, context: "an error code", diagnostics: diagnostics) else { continue }
            let name = codeName(entry, "name", "error code name")
            let code = entry.int("code", required: true)
            let userInfoName = entry.string("userInfoName", required: true)
            let description = entry.string("description", required: true)
            entry.rejectUnknownKeys()
            guard let name, let code, let userInfoName, let description else { continue }
            codes.append(
                Code(
                    name: name, code: code, userInfoName: userInfoName, description: description,
                    location: item.location))
        }
        var serverCodes: [ServerMapping] = []
        for item in reader.list("serverCodes", required: true) ?? [] {
            guard let entry = MappingReader(item, context: "a server code mapping", diagnostics: diagnostics) else {
                continue
            }
            let server = entry.string("server", required: true)
            let code = entry.raw("code") == nil ? nil : codeName(entry, "code", "error code name")
            let internalReason = entry.string("internal")
            let status = entry.int("status") ?? 400
            let detailText = entry.string("detail") ?? ServerMapping.Detail.optional.rawValue
            let detail = ServerMapping.Detail(rawValue: detailText)
            if detail == nil {
                diagnostics.error(
                    "'detail' must be none, optional or required, found '\(detailText)'",
                    at: entry.raw("detail")?.location ?? entry.location)
            }
            if (entry.raw("code") == nil) == (internalReason == nil) {
                diagnostics.error(
                    "server code '\(server ?? "?")' needs either 'code' (what the client makes of it) or 'internal' (why it maps to the fallback on purpose)",
                    at: item.location)
            }
            if !(400...599).contains(status) {
                diagnostics.error(
                    "server code '\(server ?? "?")' has status \(status); an error status is 400 to 599",
                    at: entry.raw("status")?.location ?? item.location)
            }
            let reason = entry.string("reason")
            entry.rejectUnknownKeys()
            if let server,
                let swiftName = Naming.identifier(
                    Naming.camelCase(server.lowercased()), "the Swift name of server code '\(server)'",
                    at: entry.raw("server")?.location ?? item.location, diagnostics: diagnostics)
            {
                serverCodes.append(
                    ServerMapping(
                        server: server, code: code, internalReason: internalReason, status: status,
                        detail: detail ?? .optional, reason: reason, location: item.location, swiftName: swiftName))
            }
        }
        var reasons: [ReasonMapping] = []
        for item in reader.list("reasons") ?? [] {
            guard let entry = MappingReader(item, context: "a reason mapping", diagnostics: diagnostics) else {
                continue
            }
            let prefix = entry.string("prefix", required: true)
            let code = codeName(entry, "code", "error code name")
            entry.rejectUnknownKeys()
            if let prefix, let code {
                reasons.append(ReasonMapping(prefix: prefix, code: code, location: item.location))
            }
        }
        reader.rejectUnknownKeys()
        let spec = ErrorsSpec(
            file: root.file, domain: domain, unknownServerCode: unknown, transportFailure: transport,
            undecodableResponse: undecodable, codes: codes, serverCodes: serverCodes, reasons: reasons
        )
        spec.validate(diagnostics: diagnostics, fallbackLocation: fallback?.location ?? reader.location)
        return spec
    }

    private func validate(diagnostics: DiagnosticCollector, fallbackLocation: SourceLocation) {
        var names: [SwiftName: Code] = [:]
        var values: [Int: Code] = [:]
        for code in codes {
            if let first = names[code.name] {
                diagnostics.error(
                    "duplicate error code name '\(code.name)' (first at \(first.location))", at: code.location)
            }
            if let first = values[code.code] {
                diagnostics.error(
                    "raw value \(code.code) of '\(code.name)' is already used by '\(first.name)'", at: code.location)
            }
            names[code.name] = names[code.name] ?? code
            values[code.code] = values[code.code] ?? code
        }
        var servers: Set<String> = []
        var swiftNames: Set<SwiftName> = []
        for mapping in serverCodes {
            if let code = mapping.code, names[code] == nil {
                diagnostics.error(
                    "server code '\(mapping.server)' maps to unknown error code '\(code)'", at: mapping.location)
            }
            if !servers.insert(mapping.server).inserted {
                diagnostics.error("server code '\(mapping.server)' is mapped twice", at: mapping.location)
            } else if ["allKnownCodes", "codesWithoutClientMapping"].contains(mapping.swiftName.bare)
                || !swiftNames.insert(mapping.swiftName).inserted
            {
                diagnostics.error(
                    "server code '\(mapping.server)' gives the Swift name '\(mapping.swiftName)', which another name of the table already takes",
                    at: mapping.location)
            }
        }
        for mapping in reasons where names[mapping.code] == nil {
            diagnostics.error(
                "reason '\(mapping.prefix)' maps to unknown error code '\(mapping.code)'", at: mapping.location)
        }
        for fallback in [unknownServerCode, transportFailure, undecodableResponse] where names[fallback] == nil {
            diagnostics.error("fallback names unknown error code '\(fallback)'", at: fallbackLocation)
        }
    }
}
