package import Foundation

/// How this package writes JSON whose bytes matter (signed claims, request
/// and error bodies, the length of custom claims, a value's description):
/// keys sorted and slashes unescaped, so equal values are equal bytes.
/// Foundation's encoder otherwise orders an object's keys anew for each
/// value.
package enum CanonicalJSON {
    /// A new encoder so set (`JSONEncoder` is a class: one per use).
    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
