import Foundation

/// The generator's config file (`spec-codegen-config.json`), kept in the
/// folder of the target it generates for. Paths are relative to that folder.
public struct GeneratorConfig: Decodable, Sendable {
    /// What to generate into a target.
    public enum Part: String, Decodable, Sendable, CaseIterable {
        /// Codable models for every schema.
        case types
        /// One client per document, with completion-handler twins.
        case clients
        /// The error-code enum and tables from `errors`.
        case errorCodes
        /// Completion twins and Objective-C-style names from `facades`.
        case facades
        /// One service protocol per document with its route registration, for servers.
        case server
        /// A server's errors from `errors`: one `APIServerError` per short code.
        case serverErrors
    }

    public var specs: [String]
    public var errors: String?
    public var facades: String?
    public var generate: [Part]
    public var accessModifier: String?
    public var imports: [String]?
    /// Those of `imports` whose types the generated facades' public
    /// signatures use (such as a parameter of type `JSONValue`): they are
    /// imported `public` when the access modifier is public.
    public var publicImports: [String]?
    /// The hand-written type that the generated error codes extend.
    public var errorType: String?
    /// The specs (a subset of `specs`) whose schemas `types` generates; all
    /// by default. The others are read for references only: their types come
    /// from an imported module (the emulator generates the schemas of its
    /// own state format, and imports the API's from IdentityToolkit).
    public var typesFrom: [String]?
    /// A compilation condition (a package trait) that every generated file
    /// compiles under: each is wrapped in `#if NAME`, so that a module whose
    /// hand-written files are gated on a trait is empty without it (the
    /// emulator's routes need its hand-written types).
    public var compilationCondition: String?

    public init(
        specs: [String], errors: String? = nil, facades: String? = nil, generate: [Part],
        accessModifier: String? = nil, imports: [String]? = nil, publicImports: [String]? = nil,
        errorType: String? = nil,
        typesFrom: [String]? = nil, compilationCondition: String? = nil
    ) {
        self.compilationCondition = compilationCondition
        self.specs = specs
        self.errors = errors
        self.facades = facades
        self.generate = generate
        self.accessModifier = accessModifier
        self.imports = imports
        self.publicImports = publicImports
        self.errorType = errorType
        self.typesFrom = typesFrom
    }
}

/// The fixed set of files written for every config; unused ones hold only a
/// header, because SwiftPM must know a build command's outputs in advance.
public enum OutputFile: String, CaseIterable, Sendable, Comparable {
    case types = "GeneratedTypes.swift"
    case clients = "GeneratedClients.swift"
    case clientCompletions = "GeneratedClientCompletions.swift"
    case errorCodes = "GeneratedErrorCodes.swift"
    case facades = "GeneratedFacades.swift"
    case server = "GeneratedServer.swift"
    case serverErrors = "GeneratedServerErrors.swift"

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Entry points of the generator: parse → validate → translate → render.
public enum SpecCodegen {
    /// Reads a file's text; injectable so tests need no files.
    public typealias FileReader = (String) throws -> String

    public static func defaultReader(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// Generates every output file for the config at `configPath`.
    public static func generate(configAt configPath: String, readFile: FileReader = defaultReader) throws
        -> [OutputFile: String]
    {
        let configText: String
        do {
            configText = try readFile(configPath)
        } catch {
            throw SpecCodegenFailure(diagnostics: [
                Diagnostic(
                    .error, "cannot read the config: \(error.localizedDescription)",
                    at: SourceLocation(file: configPath, line: 1, column: 1))
            ])
        }
        let config: GeneratorConfig
        do {
            config = try JSONDecoder().decode(GeneratorConfig.self, from: Data(configText.utf8))
        } catch {
            throw SpecCodegenFailure(diagnostics: [
                Diagnostic(
                    .error, "malformed config: \(describe(decodingError: error))",
                    at: SourceLocation(file: configPath, line: 1, column: 1))
            ])
        }
        let base = (configPath as NSString).deletingLastPathComponent
        return try generate(config: config, baseDirectory: base, configPath: configPath, readFile: readFile)
    }

    /// Generates every output file for `config`, resolving its paths against `baseDirectory`.
    public static func generate(
        config: GeneratorConfig, baseDirectory: String, configPath: String = "config",
        readFile: FileReader = defaultReader
    ) throws -> [OutputFile: String] {
        let files = try translate(
            config: config, baseDirectory: baseDirectory, configPath: configPath, readFile: readFile)
        var output: [OutputFile: String] = [:]
        for file in OutputFile.allCases {
            let text =
                files[file].map(Renderer.render)
                ?? "// \(Translator.header)\n// Nothing to generate here for this config.\n"
            // `translate` has checked the condition is an identifier.
            output[file] =
                config.compilationCondition.map { "#if \($0)\n\(text)\(text.hasSuffix("\n") ? "" : "\n")#endif\n" }
                ?? text
        }
        return output
    }

    /// The syntax model of every file `config` generates (what `generate`
    /// renders, and what `api-diff` reads the public declarations from).
    static func translate(
        config: GeneratorConfig, baseDirectory: String, configPath: String = "config",
        readFile: FileReader = defaultReader
    ) throws -> [OutputFile: SwiftFile] {
        let diagnostics = DiagnosticCollector()
        let configLocation = SourceLocation(file: configPath, line: 1, column: 1)
        func resolve(_ path: String) -> String {
            path.hasPrefix("/") || baseDirectory.isEmpty ? path : normalize(baseDirectory + "/" + path)
        }
        let access: AccessModifier
        switch config.accessModifier ?? "public" {
        case "public": access = .public
        case "package": access = .package
        case "internal": access = .internal
        case let other:
            diagnostics.error(
                "accessModifier must be public, package or internal, found '\(other)'", at: configLocation)
            access = .public
        }
        let parts = Set(config.generate)
        let documents = config.specs.compactMap {
            load(resolve($0), readFile: readFile, diagnostics: diagnostics).flatMap {
                OpenAPIParser(diagnostics: diagnostics).parse($0)
            }
        }
        let schemas = Validator(diagnostics: diagnostics, requiresServerSchemas: parts.contains(.server)).validate(
            documents)

        var errors: ErrorsSpec?
        if parts.contains(.errorCodes) || parts.contains(.serverErrors) {
            if parts.contains(.errorCodes), config.errorType == nil {
                diagnostics.error("'errorCodes' needs 'errorType' in the config", at: configLocation)
            }
            if let path = config.errors {
                errors = load(resolve(path), readFile: readFile, diagnostics: diagnostics).flatMap {
                    ErrorsSpec.parse($0, diagnostics: diagnostics)
                }
            } else {
                diagnostics.error(
                    "'\(parts.contains(.errorCodes) ? "errorCodes" : "serverErrors")' needs an 'errors' file in the config",
                    at: configLocation)
            }
        }
        var facades: FacadesSpec?
        if parts.contains(.facades) {
            if let path = config.facades {
                facades = load(resolve(path), readFile: readFile, diagnostics: diagnostics).flatMap {
                    FacadesSpec.parse($0, diagnostics: diagnostics)
                }
            } else {
                diagnostics.error("'facades' needs a 'facades' file in the config", at: configLocation)
            }
        }
        let imports = (config.imports ?? []).compactMap {
            Naming.identifier($0, "module name in 'imports'", at: configLocation, diagnostics: diagnostics)
        }
        let publicImports = (config.publicImports ?? []).compactMap {
            Naming.identifier($0, "module name in 'publicImports'", at: configLocation, diagnostics: diagnostics)
        }
        for module in publicImports where !imports.contains(module) {
            diagnostics.error("'publicImports' names '\(module)', which 'imports' does not list", at: configLocation)
        }
        let errorType = config.errorType.flatMap {
            Naming.qualifiedName($0, "'errorType'", at: configLocation, diagnostics: diagnostics)
        }
        if parts.contains(.clients) {
            // A client of such an operation would send no body at all.
            for document in documents {
                for operation in document.operations where operation.emulatorRequestBody != nil {
                    diagnostics.error(
                        "'\(operation.id)' has only an 'x-emulator-request-body', which no client sends: generate 'server' alone for '\(document.file)', or describe its production body in 'requestBody'",
                        at: operation.location)
                }
            }
        }
        if let condition = config.compilationCondition {
            _ = Naming.identifier(condition, "'compilationCondition'", at: configLocation, diagnostics: diagnostics)
        }
        for spec in config.typesFrom ?? [] where !config.specs.contains(spec) {
            diagnostics.error("'typesFrom' names '\(spec)', which 'specs' does not list", at: configLocation)
        }
        if diagnostics.hasErrors { throw SpecCodegenFailure(diagnostics: diagnostics.sorted) }

        let translator = Translator(access: access)
        var files: [OutputFile: SwiftFile] = [:]
        if parts.contains(.types) {
            let typed = config.typesFrom.map { Set($0.map(resolve)) }
            files[.types] = translator.typesFile(
                typed.map { files in schemas.filter { files.contains($0.location.file) } } ?? schemas, imports: imports)
        }
        if parts.contains(.clients) {
            files[.clients] = translator.clientsFile(documents, imports: imports)
            files[.clientCompletions] = translator.completionsFile(documents, imports: imports)
        }
        if let errors, let type = errorType, parts.contains(.errorCodes) {
            files[.errorCodes] = translator.errorCodesFile(errors, typeName: type, imports: imports)
        }
        if let facades {
            files[.facades] = translator.facadesFile(facades, imports: imports, publicImports: publicImports)
        }
        if parts.contains(.server) {
            // Server routes are never public API: at most `package`, like the
            // runtime they build on (IdentityToolkit's APIServer).
            let serverAccess: AccessModifier = access == .public ? .package : access
            files[.server] = Translator(access: serverAccess).serverFile(documents, schemas: schemas, imports: imports)
        }
        if let errors, parts.contains(.serverErrors) {
            files[.serverErrors] = Translator(access: access == .public ? .package : access).serverErrorsFile(
                errors, imports: imports)
        }
        return files
    }

    /// Validates spec files of any kind (OpenAPI, errors, facades); OpenAPI
    /// documents are also checked against each other.
    public static func validate(files: [String], readFile: FileReader = defaultReader) -> [Diagnostic] {
        let diagnostics = DiagnosticCollector()
        var documents: [APIDocument] = []
        var loaded: Set<String> = []
        func check(_ path: String) {
            guard loaded.insert(path).inserted, let root = load(path, readFile: readFile, diagnostics: diagnostics)
            else { return }
            switch SpecFileKind(root) {
            case .openAPI:
                if let document = OpenAPIParser(diagnostics: diagnostics).parse(root) { documents.append(document) }
            case .errors:
                _ = ErrorsSpec.parse(root, diagnostics: diagnostics)
            case .facades:
                _ = FacadesSpec.parse(root, diagnostics: diagnostics)
            case nil:
                diagnostics.error(SpecFileKind.unknownMessage, at: root.location)
            }
        }
        for path in files { check(normalize(path)) }
        // A document is valid with what it references: documents it names
        // (resolved from its own folder, as OpenAPI tools do) are read and
        // checked too, when they were not given.
        var next = 0
        while next < documents.count {
            for reference in documents[next].externalReferences + documents[next].serverReferences {
                check(reference.file)
            }
            next += 1
        }
        _ = Validator(diagnostics: diagnostics).validate(documents)
        return diagnostics.sorted
    }

    /// Writes the outputs into `directory`, touching only files whose bytes
    /// changed (so that a no-op generation rebuilds nothing). Returns the written files.
    @discardableResult
    public static func write(_ outputs: [OutputFile: String], to directory: String) throws -> [OutputFile] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var written: [OutputFile] = []
        for (file, text) in outputs.sorted(by: { $0.key < $1.key }) {
            let path = directory + "/" + file.rawValue
            let data = Data(text.utf8)
            if let existing = FileManager.default.contents(atPath: path), existing == data { continue }
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            written.append(file)
        }
        return written
    }

    static func load(_ path: String, readFile: FileReader, diagnostics: DiagnosticCollector) -> YAMLValue? {
        let text: String
        do {
            text = try readFile(path)
        } catch {
            diagnostics.error(
                "cannot read the file: \(error.localizedDescription)",
                at: SourceLocation(file: path, line: 1, column: 1))
            return nil
        }
        return YAMLValue.parse(text, file: path, diagnostics: diagnostics)
    }

    /// `a/b/../c` → `a/c`, so diagnostics show short paths.
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            if part == "..", let last = parts.last, last != "..", !last.isEmpty {
                parts.removeLast()
            } else if part != "." {
                parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }

    private static func describe(decodingError error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing key '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.dataCorrupted(let context),
            DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return (path.isEmpty ? "" : "at '\(path)': ") + context.debugDescription
        default: return "\(error)"
        }
    }
}

/// What a spec file is, told by its top-level keys: the one rule that
/// `validate` and `api-diff` share.
enum SpecFileKind {
    case openAPI, errors, facades

    static let unknownMessage =
        "not a spec file: expected an OpenAPI document ('openapi'), an errors file ('codes') or a facades file ('types')"

    init?(_ root: YAMLValue) {
        let keys = Set(root.mappingEntries?.map(\.key) ?? [])
        if keys.contains("openapi") {
            self = .openAPI
        } else if keys.contains("codes") || keys.contains("serverCodes") {
            self = .errors
        } else if keys.contains("types") || keys.contains("delivery") {
            self = .facades
        } else {
            return nil
        }
    }
}
