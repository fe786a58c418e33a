import Foundation
import IdentityToolkitTestSupport
import Testing

@testable import SpecCodegen

/// `spec-codegen api-diff`: its rules on small specs (each change and its
/// reverse), its verdict on every mutation of the corpus, and its command line.
@Suite struct APIDiffTests {
    /// A folder of its own with `old/NAME` and `new/NAME`.
    struct Versions {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-diff-\(UUID().uuidString)").path

        init(name: String = "api.yaml", old: String, new: String) throws {
            for (side, text) in [("old", old), ("new", new)] {
                try FileManager.default.createDirectory(atPath: "\(folder)/\(side)", withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: "\(folder)/\(side)/\(name)"))
            }
        }

        func compare(package: String? = nil) throws -> [APIChange] {
            defer { try? FileManager.default.removeItem(atPath: folder) }
            return try APIDiff.compare(old: "\(folder)/old", new: "\(folder)/new", package: package)
        }
    }

    static func verdict(_ changes: [APIChange]) -> APIChange.Kind? {
        changes.map(\.kind).min()
    }

    static let thing = """
            Thing:
              type: object
              description: A thing.
              required: [name]
              properties:
                name: {type: string, description: Its name.}
                size: {type: integer, format: int32, description: Its size.}
            Color:
              type: string
              description: A color.
              enum: [RED, BLUE]
        """
    static let getThing = """
          /v1/things:get:
            post:
              operationId: getThing
              summary: Gets a thing.
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/Thing'}
              responses:
                '200':
                  description: The thing.
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Thing'}
        """

    func spec(schemas: String = thing, paths: String = getThing) -> String {
        document(schemas: schemas, paths: "\n" + paths)
    }

    /// Each rule, forward and back: what a caller of the generated Swift sees.
    @Test(arguments: [
        // (what, old schemas/paths edit, verdict forward, verdict back)
        ("field removed / added without x-since", "size", APIChange.Kind.breaking, APIChange.Kind.breaking),
        ("field added with x-since / removed", "since", .additive, .breaking),
        ("operation added / removed", "operation", .additive, .breaking),
        ("enum value added / removed", "enum", .additive, .breaking),
        ("description changed", "description", .cosmetic, .cosmetic),
        ("optional ↔ required", "required", .breaking, .breaking),
        ("type changed", "type", .breaking, .breaking),
        ("path changed", "path", .cosmetic, .cosmetic),
    ])
    func rulesBothWays(what: String, edit: String, forward: APIChange.Kind, back: APIChange.Kind) throws {
        let old = spec()
        let new: String
        switch edit {
        case "size":
            new = spec(
                schemas: Self.thing.replacingOccurrences(
                    of: "        size: {type: integer, format: int32, description: Its size.}\n", with: ""))
        case "since":
            new = spec(
                schemas: Self.thing.replacingOccurrences(
                    of: "description: Its size.}\n",
                    with:
                        "description: Its size.}\n        weight: {type: number, x-since: '1.1', description: Its weight.}\n"
                ))
        case "operation":
            new = spec(
                paths: Self.getThing + "\n"
                    + Self.getThing.replacingOccurrences(of: "things:get", with: "things:list").replacingOccurrences(
                        of: "getThing", with: "listThings"))
        case "enum": new = spec(schemas: Self.thing.replacingOccurrences(of: "[RED, BLUE]", with: "[RED, BLUE, GREEN]"))
        case "description":
            new = spec(schemas: Self.thing.replacingOccurrences(of: "Its size.", with: "How big it is."))
        case "required":
            new = spec(schemas: Self.thing.replacingOccurrences(of: "required: [name]", with: "required: [name, size]"))
        case "type": new = spec(schemas: Self.thing.replacingOccurrences(of: "format: int32", with: "format: int64"))
        default: new = spec(paths: Self.getThing.replacingOccurrences(of: "things:get", with: "things:fetch"))
        }
        #expect(Self.verdict(try Versions(old: old, new: new).compare()) == forward, "\(what), forward")
        #expect(Self.verdict(try Versions(old: new, new: old).compare()) == back, "\(what), back")
        #expect(try Versions(old: old, new: old).compare().isEmpty, "no change, no line")
    }

    @Test func linesNameTheSpecElementAndTheSwiftDeclaration() throws {
        let removed = try Versions(
            old: spec(),
            new: spec(
                schemas: Self.thing.replacingOccurrences(
                    of: "        size: {type: integer, format: int32, description: Its size.}\n", with: ""))
        ).compare()
        #expect(removed.map(\.description).contains("breaking: Thing.size removed (property Thing.size removed)"))
        #expect(
            removed.contains {
                $0.subject == "schema Thing" && $0.declarations.contains("initializer Thing.init(name:size:) removed")
            })
        let moved = try Versions(
            old: spec(), new: spec(paths: Self.getThing.replacingOccurrences(of: "post:", with: "put:"))
        ).compare()
        #expect(
            moved.map(\.description) == [
                "cosmetic: operation getThing moved: POST /v1/things:get → PUT /v1/things:get (the Swift API is unchanged; callers reach another endpoint)"
            ])
        let added = try Versions(
            old: spec(),
            new: spec(
                paths: Self.getThing + "\n"
                    + Self.getThing.replacingOccurrences(of: "things:get", with: "things:list").replacingOccurrences(
                        of: "getThing", with: "listThings"))
        ).compare()
        #expect(
            added.contains {
                $0.description.hasPrefix("additive: operation listThings added (method TestClient.listThings(_:) added")
            })
        // The server routes are not public: their new requirement is noted, and breaks no caller.
        #expect(
            added.contains {
                $0.declarations.contains {
                    $0.contains(
                        "protocol requirement TestService.listThings(_:request:) added; server side, not public")
                }
            })
    }

    /// Every mutation of the corpus gets the verdict the digester gives
    /// (checked against it by .ci/api_diff_corpus.py).
    /// The comparisons (half a minute of YAML in a debug build) run off the
    /// cooperative pool, so that the tests waiting behind them keep moving.
    @Test func theCorpusVerdicts() async throws {
        let corpus = try Corpus.load()
        #expect(corpus.mutations.count >= 25)
        for mutation in corpus.mutations {
            let original = try String(contentsOfFile: Repository.path("Spec/\(mutation.file)"), encoding: .utf8)
            try #require(
                original.components(separatedBy: mutation.find).count == 2, "\(mutation.name): `find` must occur once")
            let changes = try await offThePool {
                try Versions(
                    name: mutation.file, old: original,
                    new: original.replacingOccurrences(of: mutation.find, with: mutation.replace)
                )
                .compare(package: Repository.root)
            }
            let verdict =
                changes.contains { $0.kind == .breaking }
                ? "breaking" : changes.contains { $0.kind == .additive } ? "additive" : "cosmetic"
            #expect(verdict == mutation.expect, "\(mutation.name): \(changes.map(\.description))")
            #expect(!changes.isEmpty, "\(mutation.name): no line")
        }
    }

    /// The article's table of verdicts is the corpus, row for row, so that
    /// the docs say only what the digester has confirmed.
    @Test func theArticleIsTheCorpus() throws {
        let corpus = try Corpus.load()
        let rows =
            ["| Change (corpus mutation) | Spec file | Verdict | Why |", "|---|---|---|---|"]
            + corpus.mutations.map {
                "| `\($0.name)` | `\($0.file)` | \($0.expect) | \($0.why.isEmpty ? "—" : $0.why) |"
            }
        let article = try String(
            contentsOfFile: Repository.path(
                "Sources/IdentityToolkit/IdentityToolkit.docc/APIStabilityOfTheGeneratedCode.md"), encoding: .utf8)
        #expect(article.contains("<!-- corpus:begin -->\n" + rows.joined(separator: "\n") + "\n<!-- corpus:end -->"))
    }

    /// `Tests/APIDiffCorpus/mutations.json`.
    struct Corpus: Decodable {
        struct Mutation: Decodable { var name, file, find, replace, expect, why: String }
        var mutations: [Mutation]

        static func load() throws -> Corpus {
            try JSONDecoder().decode(
                Corpus.self,
                from: Data(contentsOf: URL(fileURLWithPath: Repository.path("Tests/APIDiffCorpus/mutations.json"))))
        }
    }

    @Test func badInputIsADiagnostic() throws {
        let broken = try Versions(old: spec(), new: "openapi: 3.1.0\ninfo: [title\n")
        #expect(throws: SpecCodegenFailure.self) { try broken.compare() }
        #expect(throws: SpecCodegenFailure.self) {
            try APIDiff.compare(old: "/nonexistent/a.yaml", new: "/nonexistent/b.yaml")
        }
        #expect(throws: SpecCodegenFailure.self) {
            try APIDiff.compare(old: Repository.path("Spec"), new: Repository.path("Spec/errors.yaml"))
        }
        // Two folders: files matched by name; one that only NEW has is reported.
        let folders = try Versions(old: spec(), new: spec())
        try Data(
            document(
                schemas: "",
                paths: "\n"
                    + Self.getThing.replacingOccurrences(of: "Thing'", with: "Note'").replacingOccurrences(
                        of: "getThing", with: "getNote"), client: "NotesClient"
            )
            .replacingOccurrences(
                of: "schemas:\n",
                with:
                    "schemas:\n    Note:\n      type: object\n      description: A note.\n      properties:\n        text: {type: string, description: Its text.}\n"
            ).utf8
        )
        .write(to: URL(fileURLWithPath: "\(folders.folder)/new/notes.yaml"))
        let added = try folders.compare().map(\.description)
        #expect(added.contains { $0.hasPrefix("additive: client NotesClient added") }, "\(added)")
    }

    // MARK: The command line

    static let binary = BuiltExecutable("spec-codegen")

    func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try await Self.binary.run(["api-diff"] + arguments)
        return (result.status, result.stdout, result.stderr)
    }

    @Test func exitCodesAndJSON() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-diff-cli-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let old = spec()
        let additive = spec(schemas: Self.thing.replacingOccurrences(of: "[RED, BLUE]", with: "[RED, BLUE, GREEN]"))
        let breaking = spec(schemas: Self.thing.replacingOccurrences(of: "[RED, BLUE]", with: "[RED]"))
        for (name, text) in [
            ("old.yaml", old), ("additive.yaml", additive), ("breaking.yaml", breaking),
            ("broken.yaml", "openapi: 3.1.0\ninfo: [title\n"),
        ] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
        }
        let same = try await run(["\(folder)/old.yaml", "\(folder)/old.yaml"])
        #expect(same.status == 0 && same.stdout.isEmpty)
        let added = try await run(["\(folder)/old.yaml", "\(folder)/additive.yaml"])
        #expect(
            added.status == 0 && added.stdout == "additive: Color.green added (static property Color.green added)\n")
        let broke = try await run(["\(folder)/old.yaml", "\(folder)/breaking.yaml"])
        #expect(
            broke.status == 1
                && broke.stdout.hasPrefix("breaking: Color.blue removed (static property Color.blue removed)"))
        let json = try await run(["\(folder)/old.yaml", "\(folder)/breaking.yaml", "--format", "json"])
        #expect(json.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["verdict"] as? String == "breaking")
        let first = try #require((report["changes"] as? [[String: Any]])?.first)
        #expect(
            first["kind"] as? String == "breaking" && first["subject"] as? String == "Color.blue"
                && first["change"] as? String == "removed")
        let bad = try await run(["\(folder)/old.yaml", "\(folder)/broken.yaml"])
        #expect(bad.status == 2 && bad.stderr.contains("broken.yaml:3:1: error: malformed YAML"))
        let missing = try await run(["\(folder)/old.yaml", "\(folder)/missing.yaml"])
        #expect(missing.status == 2 && missing.stderr.contains("error: cannot read"))
    }
}
