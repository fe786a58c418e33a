import Foundation

/// Stands in for a sensitive value in descriptions and mirrors.
public struct RedactedValue: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    private let isPresent: Bool

    /// Records only whether `value` is present.
    public init<T>(_ value: T?) { isPresent = value != nil }

    /// `<redacted>`, or `nil` when there was no value.
    public var description: String { isPresent ? "<redacted>" : "nil" }
    /// The same as ``description``.
    public var debugDescription: String { description }

    /// `TypeName(field: value, …)`, optionals shown without `Optional(…)`.
    public static func describe(_ typeName: String, _ fields: KeyValuePairs<String, Any>) -> String {
        let parts = fields.map { "\($0.key): \(render($0.value))" }
        return "\(typeName)(\(parts.joined(separator: ", ")))"
    }

    private static func render(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return "nil" }
            return String(reflecting: wrapped)
        }
        return String(reflecting: value)
    }
}

/// Percent-encoding of path segments and query parts filled from parameters.
///
/// SPI `Generated`: the generated clients' plumbing, visible to generated
/// code in any package (`@_spi(Generated) import IdentityToolkit`), not API.
@_spi(Generated) public enum APIPath {
    private static let allowed: CharacterSet = {
        var set = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// Escapes everything but unreserved characters, so a value cannot add
    /// path segments or a query.
    public static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
