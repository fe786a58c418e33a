/// `errors.yaml`: the `AuthErrorCode` cases and the server short-code table.
struct ErrorsSpec {
    struct Code {
        var name: SwiftName
        var code: Int
        var userInfoName: String
        var description: String
        var location: SourceLocation
    }

    struct ServerMapping {
        var server: String
        var code: SwiftName
        var location: SourceLocation
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
            return Naming.identifier(text, what, at: reader.raw(key)?.location ?? reader.location, diagnostics: diagnostics)
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
            codes.append(Code(name: name, code: code, userInfoName: userInfoName, description: description, location: item.location))
        }
        var serverCodes: [ServerMapping] = []
        for item in reader.list("serverCodes", required: true) ?? [] {
            guard let entry = MappingReader(item, context: "a server code mapping", diagnostics: diagnostics) else { continue }
            let server = entry.string("server", required: true)
            let code = codeName(entry, "code", "error code name")
            entry.rejectUnknownKeys()
            if let server, let code { serverCodes.append(ServerMapping(server: server, code: code, location: item.location)) }
        }
        var reasons: [ReasonMapping] = []
        for item in reader.list("reasons") ?? [] {
            guard let entry = MappingReader(item, context: "a reason mapping", diagnostics: diagnostics) else { continue }
            let prefix = entry.string("prefix", required: true)
            let code = codeName(entry, "code", "error code name")
            entry.rejectUnknownKeys()
            if let prefix, let code { reasons.append(ReasonMapping(prefix: prefix, code: code, location: item.location)) }
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
                diagnostics.error("duplicate error code name '\(code.name)' (first at \(first.location))", at: code.location)
            }
            if let first = values[code.code] {
                diagnostics.error("raw value \(code.code) of '\(code.name)' is already used by '\(first.name)'", at: code.location)
            }
            names[code.name] = names[code.name] ?? code
            values[code.code] = values[code.code] ?? code
        }
        var servers: Set<String> = []
        for mapping in serverCodes {
            if names[mapping.code] == nil {
                diagnostics.error("server code '\(mapping.server)' maps to unknown error code '\(mapping.code)'", at: mapping.location)
            }
            if !servers.insert(mapping.server).inserted {
                diagnostics.error("server code '\(mapping.server)' is mapped twice", at: mapping.location)
            }
        }
        for mapping in reasons where names[mapping.code] == nil {
            diagnostics.error("reason '\(mapping.prefix)' maps to unknown error code '\(mapping.code)'", at: mapping.location)
        }
        for fallback in [unknownServerCode, transportFailure, undecodableResponse] where names[fallback] == nil {
            diagnostics.error("fallback names unknown error code '\(fallback)'", at: fallbackLocation)
        }
    }
}
