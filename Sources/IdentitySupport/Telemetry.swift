#if Telemetry
import CoreMetrics
import Tracing
#endif

/// The package's one door to swift-metrics and swift-distributed-tracing
/// (the `Telemetry` trait; without it every call here does nothing and
/// neither package is built).
///
/// Metrics come from `MetricsSystem.factory` and spans from
/// `InstrumentationSystem.tracer`, as they are when the metric or span is
/// made: the task-local ones (`withMetricsFactory`, `withTracer`) first,
/// then what the app bootstrapped. A metric made before the app bootstraps
/// its backend stays silent, as swift-metrics documents, so an app
/// bootstraps first and builds `IdentityAdmin` after.
///
/// Labels and dimension values are fixed words chosen here (an outcome, a
/// reason, a store's operation): never a uid, an email, a token, a code or
/// a key, so that no secret reaches a metrics backend and no dimension has
/// unbounded values.
package enum Telemetry {
    /// A counter of `label` with `dimensions`.
    package static func counter(_ label: String, _ dimensions: [(String, String)] = []) -> TelemetryCounter {
        #if Telemetry
        TelemetryCounter(Counter(label: label, dimensions: dimensions, factory: MetricsSystem.factory))
        #else
        TelemetryCounter()
        #endif
    }

    /// A timer of `label` with `dimensions`, in seconds (the unit Prometheus expects).
    package static func timer(_ label: String, _ dimensions: [(String, String)] = []) -> TelemetryTimer {
        #if Telemetry
        TelemetryTimer(
            CoreMetrics.Timer(
                label: label, dimensions: dimensions, preferredDisplayUnit: .seconds, factory: MetricsSystem.factory
            ))
        #else
        TelemetryTimer()
        #endif
    }

    /// Runs `body` in a span named `name`, with the tracer bound now
    /// (``TelemetryTracer/current``): for calls whose own cost dwarfs the
    /// lookup (a REST call). A hot path captures its tracer once instead.
    package static func withSpan<T, Failure: Error>(
        _ name: String, kind: TelemetrySpanKind = .internal, _ body: (TelemetrySpan) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        try await TelemetryTracer.current.withSpan(name, kind: kind, body)
    }

    /// The header fields that carry the task's trace context to a server
    /// (W3C `traceparent` with the usual tracers): what the bootstrapped
    /// instrument injects; none without one.
    package static func propagationFields() -> [(name: String, value: String)] {
        #if Telemetry
        guard let context = ServiceContext.current else { return [] }
        var fields = PropagationFields()
        InstrumentationSystem.instrument.inject(context, into: &fields, using: PropagationFields.Writer())
        return fields.pairs
        #else
        return []
        #endif
    }
}

/// A tracer captured once, as swift-metrics captures its factory when a
/// metric is made: looking up `InstrumentationSystem.tracer` (a task-local,
/// a lock and dynamic casts) cost about half a microsecond, half of a
/// remembered token's whole check. An object that makes spans on a hot
/// path captures this when it is made (so an app bootstraps tracing first).
package struct TelemetryTracer: Sendable {
    #if Telemetry
    private let tracer: (any Tracer)?
    #endif
    /// Whether spans are made: false for the no-op tracer, so that a hot
    /// path can skip ``withSpan(_:kind:_:)`` (its generic closure call, and
    /// each copy of the tracer existential, cost tens of nanoseconds).
    package let isTracing: Bool

    /// The tracer bound now (`withTracer`'s, else the bootstrapped one);
    /// none when that is the no-op tracer or without the trait.
    package static var current: TelemetryTracer {
        #if Telemetry
        let tracer = InstrumentationSystem.tracer
        return tracer is NoOpTracer
            ? TelemetryTracer(tracer: nil, isTracing: false) : TelemetryTracer(tracer: tracer, isTracing: true)
        #else
        return TelemetryTracer(isTracing: false)
        #endif
    }

    /// Runs `body` in a span named `name`, a child of the task's current
    /// context, ended when `body` returns or throws (the caller marks a
    /// failure with ``TelemetrySpan/fail(_:)``, in words free of secrets).
    /// Without a tracer no span is made and `body` runs at once.
    package func withSpan<T, Failure: Error>(
        _ name: String, kind: TelemetrySpanKind = .internal, _ body: (TelemetrySpan) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        #if Telemetry
        guard let tracer else { return try await body(TelemetrySpan()) }
        let span = tracer.startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: kind.spanKind)
        defer { span.end() }
        let outcome: Result<T, Failure> = await ServiceContext.withValue(span.context) {
            do throws(Failure) { return .success(try await body(TelemetrySpan(span))) } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
        #else
        return try await body(TelemetrySpan())
        #endif
    }
}

/// What a span stands for (the subset of OpenTelemetry's kinds used here).
package enum TelemetrySpanKind: Sendable {
    /// Work inside this process (a token check).
    case `internal`
    /// A call this process makes to another server (a REST call).
    case client

    #if Telemetry
    var spanKind: SpanKind {
        switch self {
        case .internal: return .internal
        case .client: return .client
        }
    }
    #endif
}

/// A counter, or nothing without the `Telemetry` trait.
package struct TelemetryCounter: Sendable {
    #if Telemetry
    let counter: Counter
    init(_ counter: Counter) { self.counter = counter }
    #else
    init() {}
    #endif

    /// Adds `amount`.
    package func increment(by amount: Int = 1) {
        #if Telemetry
        counter.increment(by: amount)
        #endif
    }
}

/// A timer, or nothing without the `Telemetry` trait.
package struct TelemetryTimer: Sendable {
    #if Telemetry
    let timer: CoreMetrics.Timer
    init(_ timer: CoreMetrics.Timer) { self.timer = timer }
    #else
    init() {}
    #endif

    /// Records one duration.
    package func record(_ duration: Duration) {
        #if Telemetry
        timer.recordNanoseconds(
            Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        #endif
    }

    /// A measurement begun (``start()``), to end with ``stop(_:)``.
    package struct Started: Sendable {
        #if Telemetry
        let instant: ContinuousClock.Instant
        #endif
    }

    /// Begins a measurement. A start and a stop rather than a closure, so
    /// that a hot `async` path is timed without an `async` frame of its own.
    package func start() -> Started {
        #if Telemetry
        Started(instant: ContinuousClock.now)
        #else
        Started()
        #endif
    }

    /// Records the time since `started`.
    package func stop(_ started: Started) {
        #if Telemetry
        record(ContinuousClock.now - started.instant)
        #endif
    }
}

/// The span a ``Telemetry/withSpan(_:kind:_:)`` body may annotate; every
/// method does nothing when no span was made. A class, so that a hot path
/// without a tracer passes `nil` (one pointer) rather than an existential.
package final class TelemetrySpan {
    #if Telemetry
    private let span: (any Span)?
    init(_ span: (any Span)? = nil) { self.span = span }
    #else
    init() {}
    #endif

    /// Whether a span is being recorded (attributes worth computing).
    package var isRecording: Bool {
        #if Telemetry
        span?.isRecording ?? false
        #else
        false
        #endif
    }

    /// Sets attribute `key` (a fixed word, never a secret) to `value`.
    package func set(_ key: String, _ value: String) {
        #if Telemetry
        span?.attributes[key] = value
        #endif
    }

    /// Sets attribute `key` to `value`.
    package func set(_ key: String, _ value: Int) {
        #if Telemetry
        span?.attributes[key] = Int64(value)
        #endif
    }

    /// Sets attribute `key` to `value`.
    package func set(_ key: String, _ value: Bool) {
        #if Telemetry
        span?.attributes[key] = value
        #endif
    }

    /// Marks the span failed with `reason`: a fixed word or a message the
    /// caller knows holds no secret (a refusal's reason, an HTTP status),
    /// never an error's own description, which may echo its input.
    package func fail(_ reason: String) {
        #if Telemetry
        span?.setStatus(SpanStatus(code: .error, message: reason))
        #endif
    }
}

#if Telemetry
/// The carrier ``Telemetry/propagationFields()`` injects into.
private struct PropagationFields {
    var pairs: [(name: String, value: String)] = []

    struct Writer: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout PropagationFields) {
            carrier.pairs.append((key, value))
        }
    }
}
#endif
