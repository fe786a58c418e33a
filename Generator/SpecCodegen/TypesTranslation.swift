/// Models: one Codable struct per object schema, one open struct per string
/// enum, with redaction, error-body readers and field-mask paths as the
/// spec's extensions ask.
extension Translator {
    func typesFile(_ schemas: [Schema], imports: [SwiftName]) -> SwiftFile {
        let descriptions = Dictionary(
            schemas.map { ($0.name, $0.description) }, uniquingKeysWith: { first, _ in first })
        let byName = Dictionary(schemas.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var declarations: [Declaration] = []
        for schema in schemas.sorted(by: { $0.name < $1.name }) {
            // `x-access: package` narrows a public config's access for this type alone.
            let translator = schema.packageOnly && access == .public ? Translator(access: .package) : self
            declarations += translator.typeDeclarations(
                schema, descriptions: descriptions, schemas: schemas, byName: byName)
        }
        let usesDate = schemas.contains { schema in
            guard case .object(let properties) = schema.kind else { return false }
            return properties.contains { $0.type == .dateTime || $0.type == .array(.dateTime) }
        }
        return SwiftFile(
            header: Self.header,
            imports: self.imports(["Foundation"], imports, exposed: usesDate ? ["Foundation"] : []),
            declarations: declarations)
    }

    /// One schema's type and the extensions its spec extensions ask for.
    private func typeDeclarations(
        _ schema: Schema, descriptions: [SwiftName: String?], schemas: [Schema],
        byName: [SwiftName: Schema]
    ) -> [Declaration] {
        var declarations: [Declaration] = []
        switch schema.kind {
        case .stringEnum(let values):
            declarations.append(.type(enumType(schema, values)))
        case .map(let value):
            declarations.append(
                .typeAlias(
                    TypeAliasDeclaration(
                        doc: docText(schema.description), access: access, name: "\(schema.name)",
                        type: "[String: \(swiftType(value))]")))
        case .object(let properties):
            declarations.append(.type(objectType(schema, properties, descriptions: descriptions)))
            if properties.contains(where: \.sensitive) {
                declarations.append(.extension(redactingExtension(schema.name, properties)))
            }
            if let paths = schema.errorBody {
                declarations.append(.extension(errorBodyExtension(schema, paths, in: schemas)))
            }
            if schema.fieldMask {
                declarations.append(.extension(fieldPathExtension(schema.name, properties)))
            }
            if schema.strictReader {
                declarations.append(.extension(strictReaderExtension(schema.name, properties, schemas: byName)))
            }
        }
        return declarations
    }

    /// `Type.FieldPath`: the update-mask path of each field, as the wire
    /// names it, so that no hand-written code spells a mask.
    private func fieldPathExtension(_ name: SwiftName, _ properties: [Property]) -> ExtensionDeclaration {
        let paths = properties.map { property in
            Declaration.variable(
                VariableDeclaration(
                    doc: "`\(property.wireName)`", access: access, isStatic: true, isLet: true,
                    name: "\(property.swiftName)", type: nil, initialValue: .literal(property.wireName)))
        }
        return ExtensionDeclaration(
            extendedType: "\(name)",
            members: [
                .type(
                    TypeDeclaration(
                        doc:
                            "The update-mask paths of this type's fields (`updateMask`), as the wire names them; a nested field is `parent + \".\" + child`.",
                        access: access, kind: .enum, name: "FieldPath", members: paths))
            ])
    }

    /// `init(strictJSON:)` (`x-strict-reader`): the members read in one pass
    /// over the bytes, each by its wire name, unknown ones skipped, then the
    /// memberwise initializer; never public API (the parser is `package`).
    private func strictReaderExtension(_ name: SwiftName, _ properties: [Property], schemas: [SwiftName: Schema])
        -> ExtensionDeclaration
    {
        // Locals by position: no property name can clash with them or with `parser`.
        var body: [Statement] = properties.enumerated().map { index, property in
            .line("var field\(index): \(swiftType(property.type))? = nil")
        }
        var cases: [Statement] = properties.enumerated().map { index, property in
            let value = strictRead(property.type, schemas: schemas)
            return .switchCase(
                "case \(literal: property.wireName):",
                [
                    .line(
                        property.required
                            ? "field\(index) = try \(value)" : "field\(index) = try parser.readNull() ? nil : \(value)")
                ])
        }
        cases.append(.switchCase("default:", [.line("try parser.skipValue()")]))
        body.append(
            .bracketed(
                open: properties.isEmpty
                    ? "try parser.readObject { parser, _ in" : "try parser.readObject { parser, member in",
                properties.isEmpty ? [.line("try parser.skipValue()")] : [.block("switch member", cases)], close: "}"))
        for (index, property) in properties.enumerated() where property.required {
            body.append(
                .line("guard let field\(index) else { throw StrictJSONParser.missing(\(literal: property.wireName)) }"))
        }
        body.append(
            .line(
                Code.call(
                    "self.init",
                    properties.enumerated().map { (label: "\($0.element.swiftName)", value: "field\($0.offset)") })))
        return ExtensionDeclaration(
            extendedType: "\(name)", conformances: ["StrictJSONReadable"],
            members: [
                .function(
                    FunctionDeclaration(
                        doc:
                            "Reads the value as `init(from:)` decodes it, in one pass without `Codable`'s containers (`x-strict-reader`).",
                        access: access == .public ? .package : access, kind: .initializer(failable: false),
                        parameters: [.init(label: "strictJSON", name: "parser", type: "inout StrictJSONParser")],
                        isThrowing: true, body: body))
            ])
    }

    /// The expression (without `try`) that reads a value of `type` from `parser`.
    private func strictRead(_ type: TypeRef, schemas: [SwiftName: Schema]) -> Code {
        switch type {
        case .string: return "parser.readString()"
        case .integer: return "parser.readInteger(Int64.self)"
        case .bool: return "parser.readBool()"
        case .array(let element): return "parser.readArray { parser in try \(strictRead(element, schemas: schemas)) }"
        case .map(let value): return "parser.readMap { parser in try \(strictRead(value, schemas: schemas)) }"
        case .reference(let name, _):
            switch schemas[name]?.kind {
            case .stringEnum?: return "\(name)(rawValue: parser.readString())"
            case .map(let value)?: return strictRead(.map(value), schemas: schemas)
            default: return "\(name)(strictJSON: &parser)"
            }
        // The validator admits no other type to a strict reader.
        case .int32, .int64, .double, .dateTime, .json: return "parser.skipValue()"
        }
    }

    private func enumType(_ schema: Schema, _ values: [EnumValue]) -> TypeDeclaration {
        var members: [Declaration] = [
            .variable(
                VariableDeclaration(
                    doc: "The value as sent on the wire.", access: access, isLet: false, name: "rawValue",
                    type: "String")),
            .function(
                FunctionDeclaration(
                    doc: "Wraps a wire value; values this version does not know are kept as they are.",
                    access: access, kind: .initializer(failable: false),
                    parameters: [.init(label: "rawValue", name: "rawValue", type: "String")],
                    body: [.line("self.rawValue = rawValue")]
                )),
        ]
        for value in values {
            members.append(
                .variable(
                    VariableDeclaration(
                        doc: "`\(value.wire)`", access: access, isStatic: true, isLet: true,
                        name: "\(value.swiftName)", type: nil,
                        initialValue: "\(schema.name)(rawValue: \(literal: value.wire))"
                    )))
        }
        let all: [Code] = values.map { ".\(member: $0.swiftName)" }
        members.append(
            .variable(
                VariableDeclaration(
                    doc: "Every value the spec lists.", access: access, isStatic: true, isLet: true,
                    name: "allKnownValues",
                    type: "[\(schema.name)]", initialValue: "[\(all, separator: ", ")]"
                )))
        members.append(
            .variable(
                VariableDeclaration(
                    access: access, isLet: false, name: "description", type: "String", getter: [.line("rawValue")]
                )))
        let numbered = values.compactMap { value in value.number.map { (value, $0) } }
        if !numbered.isEmpty {
            var cases: [Statement] = numbered.map { value, number in
                .switchCase("case \(number):", [.line("self = .\(member: value.swiftName)")])
            }
            cases.append(.switchCase("default:", [.line("self.init(rawValue: String(number))")]))
            members.append(
                .function(
                    FunctionDeclaration(
                        doc:
                            "Reads the value by its name, or by its protocol-buffer number as proto3 JSON parsers do (some clients send numbers).",
                        access: access, kind: .initializer(failable: false),
                        parameters: [.init(label: "from", name: "decoder", type: "any Decoder")],
                        isThrowing: true,
                        body: [
                            .line("let container = try decoder.singleValueContainer()"),
                            .block(
                                "guard let number = try? container.decode(Int.self) else",
                                [
                                    .line("self.init(rawValue: try container.decode(String.self))"), .line("return"),
                                ]),
                            .block("switch number", cases),
                        ])))
        }
        return TypeDeclaration(
            doc: docText(schema.description) + "\n\nAn open set: unknown wire values decode and round-trip unchanged.",
            access: access, kind: .struct, name: "\(schema.name)",
            conformances: ["RawRepresentable", "Codable", "Hashable", "Sendable", "CustomStringConvertible"],
            members: members
        )
    }

    private func objectType(_ schema: Schema, _ properties: [Property], descriptions: [SwiftName: String?])
        -> TypeDeclaration
    {
        var members: [Declaration] = []
        for property in properties {
            var doc = docText(property.description ?? referencedDescription(property.type, descriptions))
            if property.sensitive {
                doc += "\n\nSensitive: never shown by `description`, `debugDescription` or `dump`."
            }
            members.append(
                .variable(
                    VariableDeclaration(
                        doc: doc, access: access, isLet: false, name: "\(property.swiftName)",
                        type: property.required ? swiftType(property.type) : "\(swiftType(property.type))?"
                    )))
        }
        let initParameters = properties.map { property in
            FunctionDeclaration.Parameter(
                label: "\(property.swiftName)", name: "\(property.swiftName)",
                type: property.required ? swiftType(property.type) : "\(swiftType(property.type))?",
                defaultValue: property.required ? nil : "nil"
            )
        }
        members.append(
            .function(
                FunctionDeclaration(
                    doc: "Creates a value; optional fields default to absent.", access: access,
                    kind: .initializer(failable: false), parameters: initParameters,
                    body: properties.map { .line("\(Code.member("self", $0.swiftName)) = \($0.swiftName)") }
                )))
        // The initializer of each earlier release, so that a field added
        // with `x-since` breaks no caller (see "API stability of the
        // generated code"); disfavored, so that new calls pick the full one.
        let releases = Set(properties.compactMap(\.since)).sorted(by: Property.releaseOrder)
        for release in releases {
            let kept = properties.filter { $0.since.map { Property.releaseOrder($0, release) } ?? true }
            members.append(
                .function(
                    FunctionDeclaration(
                        doc: "The initializer as it was before \(release): fields added since then stay absent.",
                        attributes: ["@_disfavoredOverload"], access: access,
                        kind: .initializer(failable: false),
                        parameters: initParameters.filter { parameter in
                            kept.contains { "\($0.swiftName)" == "\(parameter.name)" }
                        },
                        body: [.line("self.init(\(kept.map { "\($0.swiftName): \($0.swiftName)" }, separator: ", "))")]
                    )))
        }
        if properties.isEmpty {
            members.append(
                .function(
                    FunctionDeclaration(
                        access: access, kind: .initializer(failable: false),
                        parameters: [.init(label: "from", name: "decoder", type: "any Decoder")],
                        isThrowing: true, body: [.line("_ = try decoder.container(keyedBy: AnyCodingKey.self)")]
                    )))
            members.append(
                .function(
                    FunctionDeclaration(
                        access: access, kind: .function("encode"),
                        parameters: [.init(label: "to", name: "encoder", type: "any Encoder")],
                        isThrowing: true, body: [.line("_ = encoder.container(keyedBy: AnyCodingKey.self)")]
                    )))
        } else {
            members.append(
                .type(
                    TypeDeclaration(
                        access: .private, kind: .enum, name: "CodingKeys", conformances: ["String", "CodingKey"],
                        members: properties.map {
                            .enumCase(
                                EnumCaseDeclaration(
                                    name: "\($0.swiftName)",
                                    rawValue: $0.wireName == $0.swiftName.bare ? nil : .literal($0.wireName)))
                        }
                    )))
            var decode: [Statement] = [.line("let container = try decoder.container(keyedBy: CodingKeys.self)")]
            var encode: [Statement] = [.line("var container = encoder.container(keyedBy: CodingKeys.self)")]
            for property in properties {
                let key: Code = ".\(member: property.swiftName)"
                let stored = Code.member("self", property.swiftName)
                let call: Code = property.required ? "decode" : "decodeIfPresent"
                let encodeCall: Code = property.required ? "encode" : "encodeIfPresent"
                if let helper = codingHelper(property.type) {
                    let value: Code =
                        property.required
                        ? "\(helper)(\(property.swiftName))" : "\(property.swiftName).map(\(helper).init)"
                    let unwrap: Code = property.required ? "" : "?"
                    decode.append(
                        .line("\(stored) = try container.\(call)(\(helper).self, forKey: \(key))\(unwrap).value"))
                    encode.append(.line("try container.\(encodeCall)(\(value), forKey: \(key))"))
                } else {
                    decode.append(
                        .line("\(stored) = try container.\(call)(\(swiftType(property.type)).self, forKey: \(key))"))
                    encode.append(.line("try container.\(encodeCall)(\(stored), forKey: \(key))"))
                }
            }
            members.append(
                .function(
                    FunctionDeclaration(
                        access: access, kind: .initializer(failable: false),
                        parameters: [.init(label: "from", name: "decoder", type: "any Decoder")],
                        isThrowing: true, body: decode
                    )))
            members.append(
                .function(
                    FunctionDeclaration(
                        access: access, kind: .function("encode"),
                        parameters: [.init(label: "to", name: "encoder", type: "any Encoder")],
                        isThrowing: true, body: encode
                    )))
        }
        return TypeDeclaration(
            doc: docText(schema.description), access: access, kind: .struct, name: "\(schema.name)",
            conformances: ["Codable", "Hashable", "Sendable"], members: members
        )
    }

    private func redactingExtension(_ name: SwiftName, _ properties: [Property]) -> ExtensionDeclaration {
        var listing: [Statement] = []
        for property in properties {
            let stored = Code.member("self", property.swiftName)
            listing.append(
                .line(
                    property.sensitive
                        ? "\(literal: property.swiftName.bare): RedactedValue(\(stored)),"
                        : "\(literal: property.swiftName.bare): \(stored) as Any,"))
        }
        return ExtensionDeclaration(
            extendedType: "\(name)",
            conformances: ["CustomStringConvertible", "CustomDebugStringConvertible", "CustomReflectable"],
            members: [
                .variable(
                    VariableDeclaration(
                        doc: "The fields, with sensitive ones replaced by `<redacted>`.", access: .private,
                        isLet: false,
                        name: "redactedFields", type: "KeyValuePairs<String, Any>",
                        getter: [.bracketed(open: "[", listing, close: "]")]
                    )),
                .variable(
                    VariableDeclaration(
                        access: access, isLet: false, name: "description", type: "String",
                        getter: [.line("RedactedValue.describe(\(literal: name.bare), redactedFields)")])),
                .variable(
                    VariableDeclaration(
                        access: access, isLet: false, name: "debugDescription", type: "String",
                        getter: [.line("description")])),
                .variable(
                    VariableDeclaration(
                        access: access, isLet: false, name: "customMirror", type: "Mirror",
                        getter: [.line("Mirror(self, children: redactedFields, displayStyle: .struct)")])),
            ]
        )
    }

    /// `serverMessage` and `serverReasons` read along the `x-error-body`
    /// paths, by a reader type nested in the error body's type: the request
    /// executor decodes it (`ServerErrorBody`), and, being SPI where the
    /// types are public, it is plumbing of the generated clients, not API.
    private func errorBodyExtension(_ schema: Schema, _ paths: ErrorBodyPaths, in schemas: [Schema])
        -> ExtensionDeclaration
    {
        let root: Code = "self.body"
        let message = accessExpression(paths.message, from: schema, in: schemas, root: root)
        let reasons: [Code] = paths.reasons.map { path in
            let access = accessExpression(path, from: schema, in: schemas, root: root)
            return access.isArray ? access.code : "[\(access.code)].compactMap { $0 }"
        }
        var messageGetter: [Statement] = [.line(message.optional ? message.code : "Optional(\(message.code))")]
        if let detailPath = paths.detail {
            let detail = accessExpression(detailPath, from: schema, in: schemas, root: root)
            messageGetter = [
                .block(
                    "guard let message = \(message.optional ? message.code : "Optional(\(message.code))") else",
                    [.line("return nil")]),
                .block(
                    "if let detail = \(detail.optional ? detail.code : "Optional(\(detail.code))")",
                    [.line("return message + \" : \" + detail")]),
                .line("return message"),
            ]
        }
        let reader = TypeDeclaration(
            doc:
                "Reads the server's message and reasons from a `\(schema.name.bare)` error body, for the request executor.",
            attributes: access == .public ? [Self.generatedSPI] : [], access: access, kind: .struct,
            name: Self.errorReaderName,
            conformances: ["ServerErrorBody"],
            members: [
                .variable(
                    VariableDeclaration(
                        doc: "The decoded error body.", access: access, isLet: true, name: "body",
                        type: "\(schema.name)")),
                .function(
                    FunctionDeclaration(
                        doc: "Decodes the error body.\n- Parameter decoder: The body's decoder.", access: access,
                        kind: .initializer(failable: false),
                        parameters: [.init(label: "from", name: "decoder", type: "any Decoder")], isThrowing: true,
                        body: [.line("body = try \(schema.name)(from: decoder)")])),
                .variable(
                    VariableDeclaration(
                        doc: "The server's message, `SHORT_CODE` or `SHORT_CODE : detail`.", access: access,
                        isLet: false, name: "serverMessage", type: "String?", getter: messageGetter)),
                .variable(
                    VariableDeclaration(
                        doc: "The machine-readable reasons.", access: access, isLet: false,
                        name: "serverReasons", type: "[String]",
                        getter: [.line(reasons.isEmpty ? "[]" : "\(reasons, separator: " + ")")])),
            ]
        )
        return ExtensionDeclaration(extendedType: "\(schema.name)", members: [.type(reader)])
    }

    /// The name of the reader nested in each `x-error-body` type.
    static let errorReaderName: Code = "ServerErrorReader"

    struct Access {
        var code: Code
        var optional: Bool
        var isArray: Bool
    }

    /// Builds `self.a?.b` style access for a validated path; `x[]` maps over an array.
    func accessExpression(_ path: [String], from root: Schema, in schemas: [Schema], root rootExpression: Code = "self")
        -> Access
    {
        var code: Code = rootExpression
        var optional = false
        var isArray = false
        var current: Schema? = root
        for segment in path {
            let isArraySegment = segment.hasSuffix("[]")
            let name = isArraySegment ? String(segment.dropLast(2)) : segment
            guard case .object(let properties)? = current?.kind,
                let property = properties.first(where: { $0.wireName == name })
            else { break }
            if isArray {
                code = "\(code).compactMap { \(Code.member("$0", property.swiftName)) }"
            } else {
                code = optional ? "\(code)?.\(member: property.swiftName)" : Code.member(code, property.swiftName)
                optional = optional || !property.required
            }
            var type = property.type
            if isArraySegment, case .array(let element) = type {
                if optional { code = "(\(code) ?? [])" }
                optional = false
                isArray = true
                type = element
            }
            if case .reference(let target, _) = type {
                current = schemas.first { $0.name == target }
            } else {
                current = nil
            }
        }
        return Access(code: code, optional: optional, isArray: isArray)
    }
}
