import Foundation
import SpecCodegen
import Testing

/// Paths of the repository, found from this file's location.
enum Repository {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static func path(_ relative: String) -> String { root + "/" + relative }
}

/// Runs the generator on in-memory files, so snippet and diagnostic tests need no disk.
struct InMemorySpec {
    var files: [String: String]

    init(_ files: [String: String]) { self.files = files }

    func reader() -> SpecCodegen.FileReader {
        let files = self.files
        return { path in
            guard let text = files[path] else { throw CocoaError(.fileNoSuchFile) }
            return text
        }
    }

    func generate(
        _ parts: [GeneratorConfig.Part] = [.types, .clients], specs: [String]? = nil, errors: String? = nil,
        facades: String? = nil, errorType: String? = nil
    ) throws -> [OutputFile: String] {
        let config = GeneratorConfig(
            specs: specs ?? files.keys.filter { $0.hasSuffix("api.yaml") }.sorted(), errors: errors, facades: facades,
            generate: parts, imports: [], errorType: errorType
        )
        return try SpecCodegen.generate(config: config, baseDirectory: "", readFile: reader())
    }

    /// The diagnostics of a generation expected to fail, as printed.
    func failures(
        _ parts: [GeneratorConfig.Part] = [.types, .clients], errors: String? = nil, facades: String? = nil,
        errorType: String? = nil
    ) -> [String] {
        do {
            _ = try generate(parts, errors: errors, facades: facades, errorType: errorType)
            return []
        } catch let failure as SpecCodegenFailure {
            return failure.diagnostics.map(\.description)
        } catch {
            return ["unexpected error: \(error)"]
        }
    }
}

/// A minimal valid document around `schemas` (indented as under `schemas:`).
func document(schemas: String, paths: String = "{}", security: String = "key", client: String = "TestClient") -> String
{
    """
    openapi: 3.1.0
    info:
      title: Test
      version: "1"
      x-swift-client: \(client)
    servers:
      - url: https://api.example.com
    security:
      - \(security): []
    paths: \(paths)
    components:
      securitySchemes:
        key: {type: apiKey, in: query, name: key}
        bearer: {type: http, scheme: bearer}
      schemas:
    \(schemas)
    """
}

/// One POST operation with a request body, as a `paths:` entry for ``document(schemas:paths:security:client:)``
/// (starting with a line break, indented as under `paths:`).
func postOperation(_ path: String, id: String, mediaType: String = "application/json", ref: String) -> String {
    """

      \(path):
        post:
          operationId: \(id)
          requestBody:
            content:
              \(mediaType):
                schema: {$ref: '\(ref)'}
          responses: {'200': {description: ok}}
    """
}
