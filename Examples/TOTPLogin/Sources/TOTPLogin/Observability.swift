import Foundation
import Metrics
import OTel
import Prometheus
import ServiceLifecycle

/// The example's telemetry backends. Traces and metrics over OTLP/HTTP
/// (swift-otel), when the standard
/// `OTEL_*` variables name a collector: `OTEL_EXPORTER_OTLP_ENDPOINT` (or
/// its `_TRACES_`/`_METRICS_` forms), with `OTEL_SERVICE_NAME`,
/// `OTEL_EXPORTER_OTLP_PROTOCOL` and the rest read by swift-otel itself.
/// The SDK records through the swift-distributed-tracing and swift-metrics
/// APIs only; this is where an app picks the backend.
enum Observability {
    static let endpointVariables = [
        "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    ]

    /// Whether `environment` names an OTLP endpoint.
    static func isRequested(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        endpointVariables.contains { environment[$0]?.isEmpty == false }
    }

    /// Bootstraps the tracer, and the metrics backend unless Prometheus
    /// serves them (`--metrics-port`; a process bootstraps one); the logs
    /// stay on the app's own handler. Returns the exporters' service, which
    /// runs first and stops last, so that the last spans are sent.
    static func bootstrap(metrics: Bool) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "TOTPLogin"
        configuration.logs.enabled = false
        configuration.metrics.enabled = metrics
        // OTLP/HTTP, the exporter this build has (the variable may say so too).
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.metrics.otlpExporter.protocol = .httpProtobuf
        return try OTel.bootstrap(configuration: configuration)
    }

    /// The other backend: Prometheus text from `registry` (at `--metrics-port`'s `/metrics`).
    static func bootstrapPrometheus(_ registry: PrometheusCollectorRegistry) {
        var factory = PrometheusMetricsFactory(registry: registry)
        // A signature check takes tens of microseconds, a REST call milliseconds.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(50), .microseconds(200), .milliseconds(1), .milliseconds(5),
            .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(2),
        ]
        MetricsSystem.bootstrap(factory)
    }
}
