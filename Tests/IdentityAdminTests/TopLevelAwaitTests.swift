import Foundation
import IdentityToolkitEmulator
import IdentityToolkitTestSupport
import Testing

/// Top-level code (a `main.swift`) awaits every async method of
/// MultiFactorAuth and IdentityAdmin without a type annotation, and each call
/// is the async method: it has finished, with its effect visible, when the
/// next line runs. With a completion twin whose completion defaulted to nil,
/// such a call compiled to the twin and returned before the work was done.
@Suite struct TopLevelAwaitTests {
    @Test func everyAsyncMethodAwaitedAtTopLevelRuns() async throws {
        let project = "demo-top-level"
        try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: project)
        ).serving { running in
            let result = try await BuiltExecutable("TopLevelConsumer").run(
                ["every-async-method", "grace@example.com"],
                environment: [
                    "FIREBASE_AUTH_EMULATOR_HOST": running.hostAndPort, "PROJECT_ID": project,
                ])
            #expect(result.status == 0, "\(result.stderr)\n\(result.stdout)")
            let ran = result.stdout.split(separator: "\n").filter { $0.hasPrefix("ran ") }.map {
                String($0.dropFirst(4))
            }
            #expect(Set(ran).count == ran.count, "a method ran twice: \(ran)")
            let expected = try Self.asyncFacadeMethods("facades.yaml") + Self.adminAsyncMethods()
            #expect(
                expected.count >= 39,
                "MultiFactorAuth's facades and IdentityAdmin's API have 39 async methods today; found \(expected)")
            let missing = expected.filter { !ran.contains($0) }
            #expect(missing.isEmpty, "awaited at top level by no line of Tests/TopLevelConsumer/main.swift: \(missing)")
            #expect(result.stdout.hasSuffix("done\n"), "\(result.stdout)")
        }
    }

    /// The methods whose completion keeps its `nil` default are the ones
    /// MultiFactorAuth's Getting Started article lists, each with its reason.
    @Test func getStartedListsEveryOmittableCompletion() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
            .standardized
        let facades = try String(contentsOf: root.appendingPathComponent("Spec/facades.yaml"), encoding: .utf8)
        var omittable: [String] = []
        var method = ""
        for line in facades.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("- swift: ") { method = String(line.dropFirst("- swift: ".count)) }
            if line.hasPrefix("omittableCompletion:") { omittable.append(method) }
        }
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/MultiFactorAuth/MultiFactorAuth.docc/GettingStarted.md"),
            encoding: .utf8)
        let section = try #require(
            article.components(separatedBy: "(`omittableCompletion`) and is listed here:").dropFirst().first)
        let listed = section.split(separator: "\n").prefix { !$0.hasPrefix("`") }.filter { $0.hasPrefix("- ") }.map {
            String($0.dropFirst(2))
        }
        if omittable.isEmpty {
            #expect(listed == ["None."], "\(listed)")
        } else {
            #expect(
                listed.count == omittable.count
                    && omittable.allSatisfy { name in listed.contains { $0.hasPrefix("`\(name)`") } },
                "\(listed) vs \(omittable)")
        }
    }

    /// IdentityAdmin's async methods of its admin, tenant and config API, as
    /// `Type.method(labels:)`, read from the sources (so a new one must be
    /// added to the top-level consumer too). Left out: the overload of
    /// `revokeRefreshTokens` that takes a time (for tests).
    static func adminAsyncMethods() throws -> [String] {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Sources/IdentityAdmin"
        ).standardized
        let files = [
            "BaseAuth.swift": "BaseAuth", "Users.swift": "BaseAuth", "UserImport.swift": "BaseAuth",
            "IdentityAdmin.swift": nil as String?, "ProjectAndTenantConfig.swift": nil,
        ]
        let function = try Regex(#"^    public func (\w+)\(([^)]*)\)[^{]*\basync\b"#).anchorsMatchLineEndings()
        var methods: [String] = []
        var typeOfExtension = ""
        for (file, fixedType) in files.sorted(by: { $0.key < $1.key }) {
            for line in try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).split(
                separator: "\n")
            {
                if let type = line.firstMatch(of: #/^(?:public )?(?:final )?(?:class|struct|extension) (\w+)/#) {
                    typeOfExtension = String(type.1)
                }
                guard let match = String(line).firstMatch(of: function) else { continue }
                let name = String(match.output[1].substring ?? "")
                let labels = (match.output[2].substring ?? "").split(separator: ",").map { parameter in
                    String(parameter.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "_")
                        .replacingOccurrences(of: ":", with: "")
                }
                let selector = "\(name)(\(labels.map { "\($0):" }.joined()))"
                if selector == "revokeRefreshTokens(uid:now:)" { continue }
                methods.append("\(fixedType ?? typeOfExtension).\(selector)")
            }
        }
        return methods
    }

    /// `Type.method(labels:)` of every async method a facades file lists
    /// (each has a completion twin, the overload the trap would pick).
    static func asyncFacadeMethods(_ file: String) throws -> [String] {
        let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Spec/\(file)"
        ).standardized
        var methods: [String] = []
        var type = ""
        var method: String?
        var isSync = false
        func finish() {
            if let method, !isSync { methods.append("\(type).\(method)") }
            method = nil
            isSync = false
        }
        for line in try String(contentsOf: spec, encoding: .utf8).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("- name: ") {
                finish()
                type = String(text.dropFirst("- name: ".count))
            } else if text.hasPrefix("- swift: ") {
                finish()
                method = String(text.dropFirst("- swift: ".count))
            } else if text == "kind: sync" {
                isSync = true
            }
        }
        finish()
        return methods
    }
}
