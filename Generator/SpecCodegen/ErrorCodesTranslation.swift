/// The error-code enum of `errors.yaml` and its lookup tables (server short
/// code → code, reason → code, `ERROR_*` names, default messages).
extension Translator {
    func errorCodesFile(_ spec: ErrorsSpec, typeName: Code, imports: [SwiftName]) -> SwiftFile {
        let cases: [Declaration] = spec.codes.map {
            .enumCase(
                EnumCaseDeclaration(
                    doc: "\($0.description) (`\($0.userInfoName)`)", name: "\($0.name)", rawValue: "\($0.code)"))
        }
        let codeEnum = TypeDeclaration(
            doc: "The numeric codes of `\(spec.domain)` errors.", access: access, kind: .enum, name: "Code",
            conformances: ["Int", "Sendable", "CaseIterable"], members: cases
        )
        var statics: [Declaration] = [
            .type(codeEnum),
            .variable(
                VariableDeclaration(
                    doc: "The error domain.", access: access, isStatic: true, isLet: true,
                    name: "errorDomain", type: "String", initialValue: .literal(spec.domain))),
        ]
        for code in spec.codes {
            statics.append(
                .variable(
                    VariableDeclaration(
                        doc: code.description, access: access, isStatic: true, isLet: true,
                        name: "\(code.name)", type: "Code", initialValue: ".\(member: code.name)")))
        }
        let nameSwitch: [Statement] = [
            .block(
                "switch self",
                spec.codes.map {
                    .switchCase("case .\(member: $0.name):", [.line("return \(literal: $0.userInfoName)")])
                })
        ]
        let descriptionSwitch: [Statement] = [
            .block(
                "switch self",
                spec.codes.map {
                    .switchCase("case .\(member: $0.name):", [.line("return \(literal: $0.description)")])
                })
        ]
        var serverSwitch: [Statement] = spec.serverCodes.compactMap { mapping in
            mapping.code.map { .switchCase("case \(literal: mapping.server):", [.line("self = .\(member: $0)")]) }
        }
        serverSwitch.append(.switchCase("default:", [.line("return nil")]))
        var reasonLines: [Statement] = spec.reasons.map {
            .block("if reason.hasPrefix(\(literal: $0.prefix))", [.line("return .\(member: $0.code)")])
        }
        reasonLines.append(.line("return nil"))
        let codeExtension = ExtensionDeclaration(
            extendedType: "\(typeName).Code",
            members: [
                .variable(
                    VariableDeclaration(
                        doc: "The `ERROR_*` name put under the user-info name key.", access: access, isLet: false,
                        name: "userInfoName", type: "String", getter: nameSwitch)),
                .variable(
                    VariableDeclaration(
                        doc: "The default localized description.", access: access, isLet: false,
                        name: "defaultDescription", type: "String", getter: descriptionSwitch)),
                .function(
                    FunctionDeclaration(
                        doc: "The code for a server short code such as `INVALID_CODE`; nil when the table has none.",
                        access: access, kind: .initializer(failable: true),
                        parameters: [.init(label: "serverCode", name: "serverCode", type: "String")],
                        body: [.block("switch serverCode", serverSwitch)])),
                .function(
                    FunctionDeclaration(
                        doc: "The code for an `errors[].reason` (such as `keyInvalid`), if it has one.",
                        access: access, isStatic: true, kind: .function("forServerReason"),
                        parameters: [.init(label: nil, name: "reason", type: "String")],
                        returnType: "Self?", body: reasonLines)),
                .variable(
                    VariableDeclaration(
                        doc: "The code for a server short code that the table lacks.", access: access, isStatic: true,
                        isLet: true, name: "unknownServerCode", type: "Self",
                        initialValue: ".\(member: spec.unknownServerCode)")),
                .variable(
                    VariableDeclaration(
                        doc: "The code for a request that got no response.", access: access, isStatic: true,
                        isLet: true, name: "transportFailure", type: "Self",
                        initialValue: ".\(member: spec.transportFailure)")),
                .variable(
                    VariableDeclaration(
                        doc: "The code for a response that could not be decoded.", access: access, isStatic: true,
                        isLet: true, name: "undecodableResponse", type: "Self",
                        initialValue: ".\(member: spec.undecodableResponse)")),
            ])
        return SwiftFile(
            header: Self.header, imports: self.imports(["Foundation"], imports),
            declarations: [
                .extension(ExtensionDeclaration(extendedType: typeName, members: statics)),
                .extension(codeExtension),
            ])
    }

    /// The server's side of the table: one `APIServerError` per short code,
    /// so that a server throws cases, never strings. A code with a detail
    /// is a function of it (both forms when the detail is optional).
    func serverErrorsFile(_ spec: ErrorsSpec, imports: [SwiftName]) -> SwiftFile {
        var members: [Declaration] = []
        for mapping in spec.serverCodes {
            let meaning =
                mapping.code.map { "The client maps it to `\($0)`." }
                ?? "The client maps it to its fallback on purpose: \(mapping.internalReason ?? "")"
            let doc = "`\(mapping.server)` (HTTP \(mapping.status)). \(meaning)"
            let reason: Code = mapping.reason.map { ", reason: \(literal: $0)" } ?? ""
            let make: (Code) -> Code = { detail in
                "APIServerError(status: \(mapping.status), code: \(literal: mapping.server)\(detail)\(reason))"
            }
            if mapping.detail != .required {
                members.append(
                    .variable(
                        VariableDeclaration(
                            doc: doc, access: access, isStatic: true, isLet: true,
                            name: "\(mapping.swiftName)", type: "APIServerError", initialValue: make(""))))
            }
            if mapping.detail != .none {
                members.append(
                    .function(
                        FunctionDeclaration(
                            doc: doc
                                + "\n- Parameter detail: The text after the short code (`\(mapping.server) : detail`).",
                            access: access, isStatic: true, kind: .function("\(mapping.swiftName)"),
                            parameters: [.init(label: nil, name: "detail", type: "String")],
                            returnType: "APIServerError",
                            body: [.line(make(", detail: detail"))])))
            }
        }
        members.append(
            .variable(
                VariableDeclaration(
                    doc: "Every short code of the table, as the server sends it.", access: access, isStatic: true,
                    isLet: true,
                    name: "allKnownCodes", type: "[String]",
                    initialValue: "[\(spec.serverCodes.map { Code.literal($0.server) }, separator: ", ")]")))
        members.append(
            .variable(
                VariableDeclaration(
                    doc: "The short codes a client maps to its fallback on purpose (`internal` in the table).",
                    access: access, isStatic: true, isLet: true,
                    name: "codesWithoutClientMapping", type: "Set<String>",
                    initialValue:
                        "[\(spec.serverCodes.filter { $0.code == nil }.map { Code.literal($0.server) }, separator: ", ")]"
                )))
        return SwiftFile(
            header: Self.header, imports: self.imports([], imports),
            declarations: [
                .extension(ExtensionDeclaration(extendedType: "APIServerError", members: members))
            ])
    }
}
