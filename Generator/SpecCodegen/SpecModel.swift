/// The parsed, validated description of one API surface (one OpenAPI document).
struct APIDocument {
    var file: String
    var title: String
    var description: String?
    /// The Swift name of the client type (`info.x-swift-client`).
    var clientName: SwiftName
    /// The production base URL, from `servers[0].url`.
    var serverURL: String
    /// `info.x-emulator-only`: the API exists only in the emulator, which
    /// serves it at its root (not below `/<production host>`); the client
    /// goes to the configured emulator, else to `serverURL`.
    var emulatorOnly = false
    var security: SecurityKind
    var operations: [Operation]
    var schemas: [Schema]
    /// `$ref`s to schemas of other documents of the same config
    /// (`other.yaml#/components/schemas/NAME`), checked by the validator.
    var externalReferences: [ExternalReference] = []
    /// `$ref`s that only a server reads (`x-emulator-response-body`): a
    /// config that generates no server need not list their documents.
    var serverReferences: [ExternalReference] = []
}

/// A `$ref` into another document: the document's path (resolved against
/// the referring document's folder) and the schema's name.
struct ExternalReference {
    var file: String
    var name: SwiftName
    var location: SourceLocation
}

/// How every call of a document is authorised.
enum SecurityKind: Equatable {
    /// An API key sent as the query parameter `name`.
    case apiKeyQuery(name: String)
    /// An `Authorization: Bearer` token.
    case bearer
    case none
}

struct Operation {
    /// The `operationId`, which names the Swift method.
    var id: SwiftName
    var method: String
    var path: String
    var summary: String?
    var pathParameters: [Parameter]
    var queryParameters: [Parameter]
    var requestBody: SchemaReference?
    /// `x-emulator-request-body`: the body the emulator reads for an
    /// operation whose production body no client of ours sends (the legacy
    /// v3 routes, which Google's emulator rewrites to v1 ones). Its schema
    /// lives in the emulator's own document, so the production schemas
    /// stay Google's; an operation has it or `requestBody`, never both, and
    /// no client is generated for it.
    var emulatorRequestBody: SchemaReference?
    /// The body a server decodes: the production one, else the emulator's.
    var serverRequestBody: SchemaReference? { requestBody ?? emulatorRequestBody }
    /// How the request body is encoded on the wire.
    var bodyEncoding: BodyEncoding = .json
    var response: SchemaReference?
    /// `x-emulator-response-body`: what the emulator answers instead of
    /// `response`, a schema of its own document with every field of the
    /// production answer and the output fields Google's emulator adds (a
    /// tenant's `tenantId`). Clients still decode `response`, which ignores
    /// the extras; the validator holds the two to that superset rule.
    var emulatorResponse: SchemaReference?
    /// The body a server encodes: the emulator's, else the production one.
    var serverResponse: SchemaReference? { emulatorResponse ?? response }
    /// Headers the success response declares (`Cache-Control` of a key
    /// endpoint): the client gets a `…WithHeaders` method that returns them.
    var responseHeaders: [String] = []
    var errorResponse: SchemaReference?
    /// The success response is an HTML page (`text/html`, a string schema):
    /// clients get its text, servers return a `String`.
    var respondsWithHTML = false
    /// `security: []` on the operation: a server serves it without the
    /// document's authorization (clients still send their credential).
    var isOpen = false
    /// `x-server-aliases`: more full paths (host segment included, as the
    /// emulator serves them) at which a server also serves the operation,
    /// such as the legacy v3 path of a v1 operation. Clients never use them.
    var serverAliases: [String] = []
    var location: SourceLocation
}

/// The media type of a request body.
enum BodyEncoding: Equatable {
    /// `application/json` only.
    case json
    /// `application/json` or `application/x-www-form-urlencoded`; clients send JSON.
    case jsonOrForm
    /// `application/x-www-form-urlencoded` only (an OAuth2 token request):
    /// clients send a form, servers read one.
    case form
}

/// A `$ref` to a component schema, where it was written.
struct SchemaReference {
    var name: SwiftName
    var location: SourceLocation
}

struct Parameter {
    /// What a parameter's value is: text, or an integer written in decimal.
    enum ValueType {
        case string, int32, int64

        /// The Swift type of the value.
        var swiftType: Code {
            switch self {
            case .string: return "String"
            case .int32: return "Int32"
            case .int64: return "Int64"
            }
        }
    }

    /// The wire name (`$.xgafv`).
    var name: String
    /// The Swift name (`xgafv`): `x-swift-name`, or the wire name in camelCase.
    var swiftName: SwiftName
    var required: Bool
    var description: String?
    var valueType: ValueType = .string
    /// `x-client-required`: optional on the wire (the server takes its
    /// absence), but the generated client always sends a non-empty value,
    /// because the absence means something no caller should ask by
    /// accident (a PATCH without `updateMask` replaces every field).
    var clientRequired = false

    /// Whether the generated client's method takes a non-optional value.
    var requiredByClient: Bool { required || clientRequired }
}

struct Schema {
    enum Kind {
        case object(properties: [Property])
        case stringEnum(values: [EnumValue])
        /// An object of any keys with values of one type (`additionalProperties`
        /// only), such as a `{kid: certificate}` key set: `[String: Value]`.
        case map(value: TypeRef)
    }

    var name: SwiftName
    var description: String?
    var kind: Kind
    /// `x-error-body`: how to read the server's error message and reasons.
    var errorBody: ErrorBodyPaths?
    /// `x-field-mask: true`: the type is updated with field masks, so the
    /// generator emits its fields' mask paths (`Type.FieldPath.name`).
    var fieldMask = false
    /// `x-strict-reader: true`: the type is read from untrusted bytes on a
    /// hot path (a JWT's header or claims), so the generator also emits
    /// `init(strictJSON:)`, a pull reader over IdentityToolkit's
    /// `StrictJSONParser` without `Codable`'s containers.
    var strictReader = false
    /// `x-access: package`: a wire type only the package's own servers and
    /// verifiers read, generated `package` where the config says `public`,
    /// so that it is no promise to apps (nil: the config's access).
    var packageOnly = false
    var location: SourceLocation
}

struct ErrorBodyPaths: Equatable {
    /// Dotted path to the message string, e.g. `error.message`.
    var message: [String]
    /// Dotted path to a detail string kept apart from the message (RFC 6749's
    /// `error_description`); the message becomes `message : detail`.
    var detail: [String]?
    /// Dotted paths to the reasons, read in order; `[]` after a segment
    /// marks an array, e.g. `error.errors[].reason` (several paths: a
    /// server that reports reasons in two places, as Google's APIs do).
    var reasons: [[String]]
    var location: SourceLocation

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.message == rhs.message && lhs.detail == rhs.detail && lhs.reasons == rhs.reasons
    }
}

/// One value of a string enum: as sent, and as its Swift constant is named.
struct EnumValue: Equatable {
    var wire: String
    var swiftName: SwiftName
    /// Its protocol-buffer number (`x-enum-numbers`), which proto3 JSON
    /// parsers also take in place of the name.
    var number: Int? = nil
}

struct Property {
    var wireName: String
    var swiftName: SwiftName
    var type: TypeRef
    var required: Bool
    var sensitive: Bool
    var description: String?
    /// `x-since`: the release that added this optional field to an existing
    /// type. The generator keeps the memberwise initializer of each earlier
    /// release (without the fields added since), so callers still compile.
    var since: String? = nil
    var location: SourceLocation
}

extension Property {
    /// Orders `x-since` releases: dotted numbers compared part by part
    /// (`1.10` after `1.9`), other text in string order.
    static func releaseOrder(_ a: String, _ b: String) -> Bool {
        let left = a.split(separator: ".")
        let right = b.split(separator: ".")
        for (x, y) in zip(left, right) where x != y {
            if let i = Int(x), let j = Int(y) { return i < j }
            return x < y
        }
        return left.count < right.count
    }
}

indirect enum TypeRef: Equatable {
    case string
    case int32
    case int64
    /// A 64-bit integer written as a JSON number (no format), unlike
    /// proto3's `int64`, which is written as a string.
    case integer
    case double
    case bool
    case dateTime
    case reference(SwiftName, SourceLocation)
    case array(TypeRef)
    /// A JSON object with arbitrary keys (`type: object` with an
    /// `additionalProperties` schema): `[String: Value]`.
    case map(TypeRef)
    /// Any JSON value (`additionalProperties: true`, the values of a
    /// free-form object such as a token's custom claims): `JSONValue`.
    case json

    /// The schemas this type names, through arrays and maps.
    var referencedNames: [SwiftName] {
        switch self {
        case .reference(let name, _): return [name]
        case .array(let element), .map(let element): return element.referencedNames
        case .string, .int32, .int64, .integer, .double, .bool, .dateTime, .json: return []
        }
    }

    static func == (lhs: TypeRef, rhs: TypeRef) -> Bool {
        switch (lhs, rhs) {
        case (.string, .string), (.int32, .int32), (.int64, .int64), (.integer, .integer), (.double, .double),
            (.bool, .bool),
            (.dateTime, .dateTime), (.json, .json):
            return true
        case (.reference(let a, _), .reference(let b, _)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)): return a == b
        default: return false
        }
    }
}

extension Schema {
    /// Two definitions of one name in different documents must agree; this
    /// compares everything but source locations.
    func isEquivalent(to other: Schema) -> Bool {
        guard name == other.name, description == other.description, errorBody == other.errorBody,
            fieldMask == other.fieldMask,
            strictReader == other.strictReader, packageOnly == other.packageOnly
        else { return false }
        switch (kind, other.kind) {
        case (.stringEnum(let a), .stringEnum(let b)): return a == b
        case (.map(let a), .map(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && zip(a, b).allSatisfy {
                    $0.wireName == $1.wireName && $0.swiftName == $1.swiftName && $0.type == $1.type
                        && $0.required == $1.required && $0.sensitive == $1.sensitive
                        && $0.description == $1.description
                        && $0.since == $1.since
                }
        default: return false
        }
    }
}
