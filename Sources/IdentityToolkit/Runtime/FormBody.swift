import Foundation

/// `application/x-www-form-urlencoded` request bodies, as an OAuth2 token
/// request sends them (RFC 6749 §4.1.3 and appendix B). The generated client
/// of a form operation encodes its body here; servers read forms with
/// `APIServerRequest.formFields`. The spec's validator guarantees that a form
/// schema holds only scalar fields.
enum FormBody {
    /// One field's value as its JSON form has it.
    private enum Scalar: Decodable {
        case text(String)
        case flag(Bool)
        case integer(Int64)
        case number(Double)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                self = .flag(value)
            } else if let value = try? container.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        var formValue: String {
            switch self {
            case .text(let value): return value
            case .flag(let value): return value ? "true" : "false"
            case .integer(let value): return String(value)
            case .number(let value): return String(value)
            }
        }
    }

    /// The body's fields as `name=value` pairs in name order, every
    /// character but the unreserved ones percent-escaped.
    static func encode<Body: Encodable>(_ body: Body) throws -> Data {
        let fields: [String: Scalar?]
        do {
            fields = try JSONDecoder().decode([String: Scalar?].self, from: JSONEncoder().encode(body))
        } catch {
            throw IdentityToolkitError.invalidRequest(
                "cannot encode \(Body.self) as a form: only scalar fields can be sent")
        }
        let pairs = fields.keys.sorted().compactMap { name in
            fields[name].flatMap { $0 }.map { APIPath.escape(name) + "=" + APIPath.escape($0.formValue) }
        }
        return Data(pairs.joined(separator: "&").utf8)
    }
}
