package import Foundation

/// Checks on a JSON body's bytes before any parser allocates for it.
extension APIServerRequest {
    /// The deepest nesting and the most objects and arrays a request body
    /// may hold: far beyond any request of the API, and small enough that
    /// decoding stays cheap.
    package static let maximumNesting = 32
    package static let maximumContainers = 2_000

    /// Refuses a JSON text nested deeper than ``maximumNesting`` or holding
    /// more than ``maximumContainers`` objects and arrays, in one pass over
    /// the bytes and before any parser allocates for it.
    package static func checkStructure(_ body: Data) throws {
        var depth = 0
        var containers = 0
        try scanJSON(body) { byte, position in
            guard position == .structure else { return true }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                containers += 1
                if depth > maximumNesting {
                    throw APIServerError.undecodableRequest("the body is nested deeper than \(maximumNesting) levels")
                }
                if containers > maximumContainers {
                    throw APIServerError.undecodableRequest(
                        "the body holds more than \(maximumContainers) objects and arrays")
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                break
            }
            return true
        }
    }

    /// Where a byte of a JSON text stands.
    enum JSONBytePosition {
        /// Outside every string.
        case structure
        /// A string's opening or closing quote.
        case stringOpen, stringClose
        /// Inside a string (escape sequences included).
        case stringContent
    }

    /// Visits every byte of a JSON text with its position, honouring
    /// escapes; stops when `visit` returns false. The one home for telling
    /// strings from structure in a single pass.
    static func scanJSON(_ body: Data, _ visit: (UInt8, JSONBytePosition) throws -> Bool) rethrows {
        var inString = false
        var escaped = false
        for byte in body {
            let position: JSONBytePosition
            if inString {
                if escaped {
                    escaped = false
                    position = .stringContent
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                    position = .stringContent
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    position = .stringClose
                } else {
                    position = .stringContent
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                position = .stringOpen
            } else {
                position = .structure
            }
            guard try visit(byte, position) else { return }
        }
    }
}
