import Foundation

/// Reads the committed fixtures (made by Fixtures/make_fixtures.py).
enum Fixture {
    static func load<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
    }

    struct Code: Decodable {
        var secret: String
        var algorithm: String
        var digits: Int
        var period: Int64
        var time: Int64
        var code: String
    }

    struct URI: Decodable {
        var uri: String
        var issuer: String?
        var account: String
        var secret: String
        var algorithm: String
        var digits: Int
        var period: Int64
    }

    struct QR: Decodable {
        var text: String
        var error: String
        var mask: Int
        var version: Int
        var matrix: [String]
    }
}
