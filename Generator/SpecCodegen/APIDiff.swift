import Foundation

/// One line of an `api-diff` report: a change to a spec element and what it
/// does to the Swift API this generator emits from it.
public struct APIChange: Codable, Equatable, Sendable, CustomStringConvertible {
    /// `breaking`: code that compiled against the old API may not compile
    /// (a declaration is removed or changed, a case added to an enum);
    /// `additive`: declarations are only added; `cosmetic`: no public
    /// declaration changes (docs, wire names, paths, server routes, tables).
    public enum Kind: String, Codable, Sendable, Comparable {
        case breaking, additive, cosmetic

        /// Breaking first, then additive, then cosmetic.
        private var rank: Int {
            switch self {
            case .breaking: 0
            case .additive: 1
            case .cosmetic: 2
            }
        }

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    public var kind: Kind
    /// The spec element: `SignUpRequest.idToken`, `operation signUp`,
    /// `error code wrongPassword`, `facade MultiFactor.enroll(with:displayName:completion:)`.
    public var subject: String
    /// What happened to it: `removed`, `added`, `changed`, or a description.
    public var change: String
    /// The Swift declarations concerned, with what happened to each.
    public var declarations: [String]

    public var description: String {
        "\(kind.rawValue): \(subject) \(change)"
            + (declarations.isEmpty ? "" : " (\(declarations.joined(separator: "; ")))")
    }
}

/// Compares two versions of a spec file or of a `Spec/` folder by what the
/// generator emits from each: see the article "API stability of the
/// generated code".
public enum APIDiff {
    /// The changes from `old` to `new` (two files, or two folders of YAML
    /// files matched by name), breaking first. `package` is the package
    /// whose `Sources/*/spec-codegen-config.json` say which module each file
    /// feeds; by default the one holding `new` (or `old`).
    /// - Throws: ``SpecCodegenFailure`` for an unreadable or invalid spec.
    public static func compare(old: String, new: String, package: String? = nil) throws -> [APIChange] {
        if isDirectory(old) != isDirectory(new) {
            throw SpecCodegenFailure(diagnostics: [
                Diagnostic(
                    .error, "compare a file with a file or a folder with a folder",
                    at: SourceLocation(file: new, line: 1, column: 1))
            ])
        }
        let oldSet = try specFiles(old)
        let newSet = try specFiles(new, renamingTo: isDirectory(old) ? nil : oldSet.keys.first)
        let root = package ?? packageRoot(containing: new) ?? packageRoot(containing: old)
        let targets = try generatingTargets(in: root, for: Set(oldSet.keys).union(newSet.keys))
        var oldDeclarations: [APIDeclaration] = []
        var newDeclarations: [APIDeclaration] = []
        var renderedDiffers = false
        let compared = Set(oldSet.keys).union(newSet.keys)
        for target in targets {
            let before = try translate(target, with: oldSet, compared: compared)
            let after = try translate(target, with: newSet, compared: compared)
            for (file, syntax) in before {
                oldDeclarations += APISurface.declarations(of: syntax, output: file, module: target.module)
            }
            for (file, syntax) in after {
                newDeclarations += APISurface.declarations(of: syntax, output: file, module: target.module)
            }
            if before.mapValues(Renderer.render) != after.mapValues(Renderer.render) { renderedDiffers = true }
        }
        var changes = declarationChanges(from: oldDeclarations, to: newDeclarations)
        changes += try wireChanges(from: oldSet, to: newSet)
        if changes.isEmpty && renderedDiffers {
            changes.append(
                APIChange(
                    kind: .cosmetic, subject: "generated code", change: "changed",
                    declarations: ["no declaration of the Swift API changes"]))
        }
        for name in Set(oldSet.keys).subtracting(newSet.keys).sorted() where !targets.contains(where: { $0.uses(name) })
        {
            changes.append(
                APIChange(
                    kind: .cosmetic, subject: "file \(name)", change: "removed",
                    declarations: ["no target generates from it"]))
        }
        for name in Set(newSet.keys).subtracting(oldSet.keys).sorted() where !targets.contains(where: { $0.uses(name) })
        {
            changes.append(
                APIChange(
                    kind: .cosmetic, subject: "file \(name)", change: "added",
                    declarations: ["no target generates from it yet"]))
        }
        return changes.sorted { ($0.kind, $0.subject, $0.change) < ($1.kind, $1.subject, $1.change) }
    }

    // MARK: - Inputs

    /// A target that generates code, and the spec files (by name) it reads.
    struct Target {
        var module: String
        var config: GeneratorConfig
        /// The folder its config's relative paths start from.
        var baseDirectory: String

        func uses(_ name: String) -> Bool {
            (config.specs + [config.errors, config.facades].compactMap { $0 }).contains {
                ($0 as NSString).lastPathComponent == name
            }
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }

    /// File name → path: the YAML files of a folder, or one file (under the
    /// name of the file it is compared with, when the names differ).
    static func specFiles(_ path: String, renamingTo name: String? = nil) throws -> [String: String] {
        if isDirectory(path) {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            let files = entries.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
            return Dictionary(uniqueKeysWithValues: files.map { ($0, path + "/" + $0) })
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw SpecCodegenFailure(diagnostics: [
                Diagnostic(.error, "cannot read '\(path)'", at: SourceLocation(file: path, line: 1, column: 1))
            ])
        }
        return [name ?? (path as NSString).lastPathComponent: path]
    }

    /// The nearest folder above `path` that holds a `Package.swift`.
    static func packageRoot(containing path: String) -> String? {
        var folder = URL(fileURLWithPath: path).standardizedFileURL
        if !isDirectory(folder.path) { folder.deleteLastPathComponent() }
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder.path
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// The targets of `root` that generate from any of `names`; without a
    /// package (or a target that reads them), a public stand-in per file
    /// of the kind that file is, named after nothing.
    static func generatingTargets(in root: String?, for names: Set<String>) throws -> [Target] {
        var targets: [Target] = []
        if let root {
            let sources = root + "/Sources"
            for module in ((try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? []).sorted() {
                let path = "\(sources)/\(module)/spec-codegen-config.json"
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                let config: GeneratorConfig
                do {
                    config = try JSONDecoder().decode(GeneratorConfig.self, from: data)
                } catch {
                    throw SpecCodegenFailure(diagnostics: [
                        Diagnostic(.error, "malformed config", at: SourceLocation(file: path, line: 1, column: 1))
                    ])
                }
                let target = Target(module: module, config: config, baseDirectory: "\(sources)/\(module)")
                if names.contains(where: target.uses) { targets.append(target) }
            }
        }
        let covered = Set(names.filter { name in targets.contains { $0.uses(name) } })
        for name in names.subtracting(covered).sorted() {
            targets.append(
                Target(
                    module: "", config: GeneratorConfig(specs: [name], generate: [.types, .clients, .server]),
                    baseDirectory: ""))
        }
        return targets
    }

    /// What `target` generates when the compared files are `files`: each
    /// file the config names is read from `files` when it is there; a spec
    /// the side lacks is left out; the rest comes from the package.
    static func translate(_ target: Target, with files: [String: String], compared: Set<String>) throws -> [OutputFile:
        SwiftFile]
    {
        var config = target.config
        /// On this side, or not compared at all (then the package's copy serves both sides).
        func present(_ path: String) -> Bool {
            let name = (path as NSString).lastPathComponent
            return files[name] != nil || !compared.contains(name)
        }
        config.specs = config.specs.filter(present)
        if let errors = config.errors, !present(errors) {
            config.errors = nil
            config.generate.removeAll { $0 == .errorCodes }
        }
        if let facades = config.facades, !present(facades) {
            config.facades = nil
            config.generate.removeAll { $0 == .facades }
        }
        if target.module.isEmpty, let name = config.specs.first, let path = files[name] {
            // A stand-in target: the file's kind decides what it generates.
            // An unreadable or unknown file is left to the OpenAPI parser, which reports it.
            let kind =
                SpecCodegen.load(path, readFile: SpecCodegen.defaultReader, diagnostics: DiagnosticCollector()).flatMap(
                    SpecFileKind.init) ?? .openAPI
            switch kind {
            case .openAPI: break
            case .errors:
                config = GeneratorConfig(specs: [], errors: name, generate: [.errorCodes], errorType: "ErrorCode")
            case .facades: config = GeneratorConfig(specs: [], facades: name, generate: [.facades])
            }
        }
        if config.specs.isEmpty && config.errors == nil && config.facades == nil { return [:] }
        let readFile: SpecCodegen.FileReader = { path in
            try SpecCodegen.defaultReader(files[(path as NSString).lastPathComponent] ?? path)
        }
        do {
            return try SpecCodegen.translate(
                config: config, baseDirectory: target.baseDirectory,
                configPath: target.module.isEmpty ? "config" : target.module + "/spec-codegen-config.json",
                readFile: readFile)
        } catch let failure as SpecCodegenFailure {
            // Name the compared file, not the package's copy, in diagnostics.
            throw SpecCodegenFailure(
                diagnostics: failure.diagnostics.map { diagnostic in
                    var located = diagnostic
                    if let path = files[(diagnostic.location.file as NSString).lastPathComponent] {
                        located.location.file = path
                    }
                    return located
                })
        }
    }

    // MARK: - Declarations

    /// The spec element a generated declaration comes from.
    static func subject(of declaration: APIDeclaration) -> String {
        let path = declaration.path
        switch declaration.file {
        case .types:
            guard path.count > 1 else { return "schema \(path[0])" }
            if declaration.kind == .initializer { return "schema \(path[0])" }
            return "\(path[0]).\(path[path.count - 1])"
        case .clients, .clientCompletions:
            guard path.count > 1 else { return "client \(path[0])" }
            let name = path[path.count - 1]
            return "operation " + (name.hasSuffix("WithHeaders") ? String(name.dropLast("WithHeaders".count)) : name)
        case .server:
            guard path.count > 1 else { return "service \(path[0])" }
            return "operation \(path[path.count - 1])"
        case .errorCodes:
            if declaration.kind == .enumCase
                || declaration.kind == .staticProperty
                    && !["errorDomain", "unknownServerCode", "transportFailure", "undecodableResponse"].contains(
                        path.last ?? "")
            {
                return "error code \(path.last ?? "")"
            }
            return "error table"
        case .facades:
            return "facade \(path.joined(separator: "."))"
        case .serverErrors:
            return "server code \(path.last ?? "")"
        }
    }

    /// Lines for every declaration removed, added or changed, grouped by the
    /// spec element they come from.
    static func declarationChanges(from old: [APIDeclaration], to new: [APIDeclaration]) -> [APIChange] {
        // Non-public declarations matter only where an implementation must follow them: server routes.
        let old = old.filter { $0.isPublic || $0.file == .server }
        let new = new.filter { $0.isPublic || $0.file == .server }
        let before = Dictionary(old.map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
        struct Group {
            var breaking = false, additive = false, removed = 0, added = 0, changed = 0, details: [String] = []
            var initializerRemoved = false, initializerAdded = false
        }
        var groups: [String: Group] = [:]
        func note(
            _ declaration: APIDeclaration, _ detail: String, breaking: Bool, additive: Bool,
            _ counter: WritableKeyPath<Group, Int>
        ) {
            let subject = subject(of: declaration)
            var group = groups[subject] ?? Group()
            group.breaking = group.breaking || (breaking && declaration.isPublic)
            group.additive = group.additive || (additive && declaration.isPublic)
            group[keyPath: counter] += 1
            if declaration.kind == .initializer && declaration.file == .types {
                if counter == \Group.removed { group.initializerRemoved = true }
                if counter == \Group.added { group.initializerAdded = true }
            }
            group.details.append(
                declaration.isPublic ? detail : "\(detail); server side, not public: the emulator must follow")
            groups[subject] = group
        }
        for (identity, declaration) in before.sorted(by: { $0.key < $1.key }) {
            guard let now = after[identity] else {
                note(declaration, "\(declaration.described) removed", breaking: true, additive: false, \.removed)
                continue
            }
            if now.signature != declaration.signature || now.isPublic != declaration.isPublic {
                let detail =
                    now.isPublic != declaration.isPublic
                    ? "\(declaration.described) is \(now.isPublic ? "now public" : "no longer public")"
                    : "\(declaration.described): \(declaration.signature) → \(now.signature)"
                note(declaration, detail, breaking: declaration.isPublic, additive: !declaration.isPublic, \.changed)
            }
        }
        for (identity, declaration) in after.sorted(by: { $0.key < $1.key }) where before[identity] == nil {
            // A new case breaks exhaustive switches; a new protocol requirement, conforming types.
            let breaks = declaration.kind == .enumCase || declaration.kind == .requirement
            let detail =
                "\(declaration.described) added" + (declaration.kind == .enumCase ? " (exhaustive switches break)" : "")
            note(declaration, detail, breaking: breaks, additive: !breaks, \.added)
        }
        return groups.map { subject, group in
            let kind: APIChange.Kind = group.breaking ? .breaking : group.additive ? .additive : .cosmetic
            let change: String
            if group.removed > 0 && group.added == 0 && group.changed == 0 {
                change = "removed"
            } else if group.added > 0 && group.removed == 0 && group.changed == 0 {
                change = "added"
            } else {
                change = "changed"
            }
            var details = group.details
            if group.initializerRemoved && group.initializerAdded {
                details.append("a field added to an existing type replaces its initializer unless it is marked x-since")
            }
            return APIChange(kind: kind, subject: subject, change: change, declarations: details)
        }
    }

    // MARK: - Changes the Swift API does not show

    /// What changed on the wire or in the docs without changing a public
    /// declaration: paths and methods, wire names, descriptions, error
    /// tables and raw values. Callers still compile; behaviour may differ.
    static func wireChanges(from oldSet: [String: String], to newSet: [String: String]) throws -> [APIChange] {
        var changes: [APIChange] = []
        func cosmetic(_ subject: String, _ change: String, _ note: String? = nil) {
            changes.append(
                APIChange(kind: .cosmetic, subject: subject, change: change, declarations: note.map { [$0] } ?? []))
        }
        for (name, oldPath) in oldSet.sorted(by: { $0.key < $1.key }) {
            guard let newPath = newSet[name] else { continue }
            let diagnostics = DiagnosticCollector()
            let read: SpecCodegen.FileReader = SpecCodegen.defaultReader
            guard let oldRoot = SpecCodegen.load(oldPath, readFile: read, diagnostics: diagnostics),
                let newRoot = SpecCodegen.load(newPath, readFile: read, diagnostics: diagnostics)
            else { throw SpecCodegenFailure(diagnostics: diagnostics.sorted) }
            switch SpecFileKind(oldRoot) {
            case nil:
                throw SpecCodegenFailure(diagnostics: [
                    Diagnostic(.error, SpecFileKind.unknownMessage, at: oldRoot.location)
                ])
            case .openAPI:
                guard let before = OpenAPIParser(diagnostics: diagnostics).parse(oldRoot),
                    let after = OpenAPIParser(diagnostics: diagnostics).parse(newRoot)
                else { throw SpecCodegenFailure(diagnostics: diagnostics.sorted) }
                if before.serverURL != after.serverURL {
                    cosmetic(
                        "client \(after.clientName)", "server URL \(before.serverURL) → \(after.serverURL)",
                        "the Swift API is unchanged; callers reach another host")
                }
                let operations = Dictionary(before.operations.map { ("\($0.id)", $0) }, uniquingKeysWith: { a, _ in a })
                for operation in after.operations {
                    guard let was = operations["\(operation.id)"] else { continue }
                    if was.method != operation.method || was.path != operation.path {
                        cosmetic(
                            "operation \(operation.id)",
                            "moved: \(was.method) \(was.path) → \(operation.method) \(operation.path)",
                            "the Swift API is unchanged; callers reach another endpoint")
                    }
                    if was.summary != operation.summary {
                        cosmetic("operation \(operation.id)", "summary changed", "doc comment")
                    }
                    for parameter in operation.queryParameters {
                        if let old = was.queryParameters.first(where: { $0.swiftName == parameter.swiftName }),
                            old.name != parameter.name
                        {
                            cosmetic(
                                "operation \(operation.id)",
                                "query parameter \(parameter.swiftName) sent as \(parameter.name) (was \(old.name))")
                        }
                    }
                }
                let schemas = Dictionary(before.schemas.map { ("\($0.name)", $0) }, uniquingKeysWith: { a, _ in a })
                for schema in after.schemas {
                    guard let was = schemas["\(schema.name)"] else { continue }
                    if was.description != schema.description {
                        cosmetic("schema \(schema.name)", "description changed", "doc comment")
                    }
                    switch (was.kind, schema.kind) {
                    case (.object(let oldProperties), .object(let newProperties)):
                        for property in newProperties {
                            guard let old = oldProperties.first(where: { $0.swiftName == property.swiftName }) else {
                                continue
                            }
                            let subject = "\(schema.name).\(property.swiftName)"
                            if old.wireName != property.wireName {
                                cosmetic(
                                    subject, "wire name \(old.wireName) → \(property.wireName)",
                                    "the Swift API is unchanged; the JSON is not")
                            }
                            if old.description != property.description {
                                cosmetic(subject, "description changed", "doc comment")
                            }
                            if old.sensitive != property.sensitive {
                                cosmetic(
                                    subject, property.sensitive ? "now x-sensitive" : "no longer x-sensitive",
                                    "how values print, not the API")
                            }
                        }
                    case (.stringEnum(let oldValues), .stringEnum(let newValues)):
                        for value in newValues {
                            if let old = oldValues.first(where: { $0.swiftName == value.swiftName }),
                                old.wire != value.wire
                            {
                                cosmetic(
                                    "\(schema.name).\(value.swiftName)", "wire value \(old.wire) → \(value.wire)",
                                    "the Swift API is unchanged; the JSON is not")
                            }
                        }
                    default: break
                    }
                }
            case .errors:
                guard let before = ErrorsSpec.parse(oldRoot, diagnostics: diagnostics),
                    let after = ErrorsSpec.parse(newRoot, diagnostics: diagnostics)
                else { throw SpecCodegenFailure(diagnostics: diagnostics.sorted) }
                if before.domain != after.domain {
                    cosmetic(
                        "error domain", "\(before.domain) → \(after.domain)", "NSError domains compared by value change"
                    )
                }
                let codes = Dictionary(before.codes.map { ("\($0.name)", $0) }, uniquingKeysWith: { a, _ in a })
                for code in after.codes {
                    guard let was = codes["\(code.name)"] else { continue }
                    let subject = "error code \(code.name)"
                    if was.code != code.code {
                        cosmetic(
                            subject, "raw value \(was.code) → \(code.code)",
                            "the Swift API is unchanged; NSError codes compared by value change")
                    }
                    if was.userInfoName != code.userInfoName {
                        cosmetic(subject, "user-info name \(was.userInfoName) → \(code.userInfoName)")
                    }
                    if was.description != code.description {
                        cosmetic(subject, "description changed", "the default message and doc comment")
                    }
                }
                // An `internal` mapping (no code) is what the client answers
                // for an unknown string, so it counts as not mapped.
                let oldMap = Dictionary(
                    before.serverCodes.compactMap { m in m.code.map { (m.server, "\($0)") } },
                    uniquingKeysWith: { a, _ in a })
                let newMap = Dictionary(
                    after.serverCodes.compactMap { m in m.code.map { (m.server, "\($0)") } },
                    uniquingKeysWith: { a, _ in a })
                for server in Set(oldMap.keys).union(newMap.keys).sorted() where oldMap[server] != newMap[server] {
                    let change =
                        switch (oldMap[server], newMap[server]) {
                        case (nil, let now?): "now maps to \(now) (was \(after.unknownServerCode))"
                        case (let was?, nil): "no longer mapped: \(after.unknownServerCode) (was \(was))"
                        case (let was?, let now?): "now maps to \(now) (was \(was))"
                        default: "unchanged"
                        }
                    cosmetic("server code \(server)", change, "behaviour: which error callers see")
                }
                let oldReasons = before.reasons.map { "\($0.prefix)→\($0.code)" }
                let newReasons = after.reasons.map { "\($0.prefix)→\($0.code)" }
                if oldReasons != newReasons {
                    cosmetic("error reasons", "changed", "behaviour: which error callers see")
                }
                if "\(before.unknownServerCode)\(before.transportFailure)\(before.undecodableResponse)"
                    != "\(after.unknownServerCode)\(after.transportFailure)\(after.undecodableResponse)"
                {
                    cosmetic("error fallbacks", "changed", "behaviour: which error callers see")
                }
            case .facades:
                guard let before = FacadesSpec.parse(oldRoot, diagnostics: diagnostics),
                    let after = FacadesSpec.parse(newRoot, diagnostics: diagnostics)
                else { throw SpecCodegenFailure(diagnostics: diagnostics.sorted) }
                for type in after.types {
                    guard let was = before.types.first(where: { $0.name == type.name }) else { continue }
                    for method in type.methods {
                        if let old = was.methods.first(where: { $0.swift == method.swift }), old.doc != method.doc {
                            cosmetic("facade \(type.name).\(method.swift)", "doc changed", "doc comment")
                        }
                    }
                }
                if "\(before.delivery)" != "\(after.delivery)" {
                    cosmetic("facades", "delivery \(before.delivery) → \(after.delivery)", "how completions are called")
                }
            }
        }
        return changes
    }
}
