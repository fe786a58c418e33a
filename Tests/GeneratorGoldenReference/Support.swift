// Hand-written types that the golden reference's generated facades and
// error codes extend, so the committed expected output compiles and runs.
import Foundation
@_spi(Generated) import IdentityToolkit

/// The error type the golden `errors.yaml` generates codes for.
public struct GoldenError: Error, Sendable {
    public var code: Code
    public init(code: Code) { self.code = code }
}

/// Delivers a facade's completion exactly once, from a new task.
public enum GoldenDelivery {
    public static func deliver<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Value,
        completion: @escaping @Sendable (Value?, (any Error)?) -> Void
    ) {
        Task {
            do {
                completion(try await operation(), nil)
            } catch {
                completion(nil, error)
            }
        }
    }
}

/// A type with async methods, for the golden facades.
public final class Shelf: Sendable {
    public let kind: Int
    public init(kind: Int) { self.kind = kind }

    public func widget(named name: String) async throws -> String {
        if name.isEmpty { throw GoldenError(code: .badKey) }
        return "widget \(name) on shelf \(kind)"
    }

    public func clear() async throws {}

    public static func make(kind: Int) async throws -> Shelf { Shelf(kind: kind) }

    public func label(for name: String, uppercased: Bool) -> String {
        uppercased ? name.uppercased() : name
    }
}

/// How the golden server reports an error in the spec's `Failure` shape.
extension Failure: APIServerErrorBody {
    package init(serverError error: APIServerError) {
        self.init(error: FailureStatus(message: error.message, details: [FailureDetail(reason: error.reason)]))
    }
}

/// A server implementing the golden service protocol, for the server-mode tests.
package struct GoldenWidgetsServer: WidgetsService {
    package init() {}

    package func getPage(title: String, request: APIServerRequest) async throws -> String {
        "<h1>\(title)</h1>"
    }

    package func getLabels(request: APIServerRequest) async throws -> Labels {
        ["w1": "first", "w2": "second"]
    }

    package func createWidget(_ body: Widget, request: APIServerRequest) async throws -> Widget {
        if body.name.isEmpty { throw APIServerError.nameMissing }
        var created = body
        created.serial = 1
        return created
    }

    package func getWidget(
        shelf: String, widget: String, viewMode: String?, maxParts: Int32?, request: APIServerRequest
    ) async throws -> Widget {
        Widget(
            name: "\(shelf)/\(widget)/\(viewMode ?? "-")" + (maxParts.map { "/\($0)" } ?? ""),
            createdAt: Date(timeIntervalSince1970: 0))
    }

    package func runOdd(default: String, xgafv: String?, in: String?, body: OddRequest, request: APIServerRequest)
        async throws -> EmptyResponse
    {
        EmptyResponse()
    }

    /// Echoes the form it was sent, so tests see what the client encoded.
    package func exchangeForm(_ body: OddRequest, request: APIServerRequest) async throws -> OddRequest {
        body
    }
}

/// A server implementing the golden bearer-token service.
package struct GoldenTokensServer: TokensService {
    package init() {}

    package func revokeToken(token: String, reason: String, request: APIServerRequest) async throws -> EmptyResponse {
        EmptyResponse()
    }
}
