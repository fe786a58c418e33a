#!/usr/bin/env python3
"""Examples/TOTPLogin exports over OTLP/HTTP (issue 58, item 4): a small
OTLP/HTTP receiver (protobuf bodies decoded with opentelemetry-proto from
PyPI) takes the example's traces and metrics while a user signs up, enrols
TOTP and signs in with the second factor; then:

- the TOTP sign-in's request is a server span whose children are the REST
  calls it made (client spans), and a signed-in page's request has the
  session cookie's verification as a child, every parent in the same trace;
- no attribute of any span, resource or metric holds the password, the TOTP
  key, a code, the email, the session cookie or any JWT;
- the SDK's counters arrive (firebase_token_verifications_total).

Usage: totplogin_otlp.py TOTPLOGIN_BINARY
"""
import gzip
import http.server
import os
import re
import signal
import subprocess
import sys
import threading
import time

from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from totplogin_browser import launch, oathtool  # noqa: E402
from totplogin_fleet import Browser, enrolled_user, expect  # noqa: E402

TOTPLOGIN = sys.argv[1]
received = {"spans": [], "metrics": [], "resources": [], "requests": 0}
lock = threading.Lock()


def any_value(value):
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return " ".join(any_value(item) for item in value.array_value.values)
    if kind == "kvlist_value":
        return " ".join(f"{item.key}={any_value(item.value)}" for item in value.kvlist_value.values)
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return str(getattr(value, kind)) if kind else ""


def attributes(items):
    return {item.key: any_value(item.value) for item in items}


def keep_span(span):
    received["spans"].append({
        "trace": span.trace_id.hex(), "id": span.span_id.hex(), "parent": span.parent_span_id.hex(),
        "name": span.name, "kind": span.kind, "attributes": attributes(span.attributes),
        "events": [attributes(event.attributes) for event in span.events]})


def keep_metric(metric):
    kind = metric.WhichOneof("data")
    points = getattr(metric, kind).data_points if kind else []
    received["metrics"].append({"name": metric.name, "attributes": [attributes(point.attributes) for point in points]})


# path → (request type, response type, the request's resource list, scope list and item list, what keeps an item)
SIGNALS = {
    "/v1/traces": (trace_service_pb2.ExportTraceServiceRequest, trace_service_pb2.ExportTraceServiceResponse,
                   "resource_spans", "scope_spans", "spans", keep_span),
    "/v1/metrics": (metrics_service_pb2.ExportMetricsServiceRequest, metrics_service_pb2.ExportMetricsServiceResponse,
                    "resource_metrics", "scope_metrics", "metrics", keep_metric),
}


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path in SIGNALS:
            request_type, response_type, resources, scopes, items, keep = SIGNALS[self.path]
            request, response = request_type(), response_type()
            request.ParseFromString(body)
            with lock:
                received["requests"] += 1
                for resource in getattr(request, resources):
                    received["resources"].append(attributes(resource.resource.attributes))
                    for scope in getattr(resource, scopes):
                        for item in getattr(scope, items):
                            keep(item)
        else:
            self.send_response(404)
            self.end_headers()
            return
        payload = response.SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


SPAN_KIND_SERVER, SPAN_KIND_CLIENT = 2, 3


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    os.environ.update({
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_SERVICE_NAME": "totplogin-ci", "OTEL_BSP_SCHEDULE_DELAY": "200", "OTEL_METRIC_EXPORT_INTERVAL": "500",
    })
    process, found = launch([TOTPLOGIN, "--port", "0"], {"base": r".*listening on (http://\S+)"})
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()

    class Local:
        base = found["base"]

    try:
        browser, email, password, secret = enrolled_user(Local, Local)
        browser.request(Local.base + "/login")
        _, _, path = browser.request(Local.base + "/login", {"email": email, "password": password})
        expect(path == "/login/totp", "the password step asks for the code")
        code = oathtool(secret, 30)
        _, _, path = browser.request(Local.base + "/login/totp", {"code": code})
        expect(path == "/account", "the TOTP sign-in lands on /account")
        cookie = next((c.value for c in browser.jar if c.name == "__session"), "")
        expect(len(cookie) > 100, "the browser holds the session cookie")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    deadline = time.time() + 20
    while time.time() < deadline and not received["metrics"]:
        time.sleep(0.2)
    server.shutdown()

    spans = received["spans"]
    print(f"received {received['requests']} OTLP requests: {len(spans)} spans, {len(received['metrics'])} metric series", flush=True)
    by_id = {span["id"]: span for span in spans}
    names = sorted({span["name"] for span in spans})
    print("span names:", ", ".join(names), flush=True)

    def route(span):
        return span["attributes"].get("http.route", "")

    def children(parent):
        return [span for span in spans if span["parent"] == parent["id"] and span["trace"] == parent["trace"]]

    def tree(span, depth=0):
        kind = {SPAN_KIND_SERVER: "server", SPAN_KIND_CLIENT: "client"}.get(span["kind"], "internal")
        print("  " * depth + f"{span['name']} ({kind})", flush=True)
        for child in children(span):
            tree(child, depth + 1)

    sign_ins = [span for span in spans if span["kind"] == SPAN_KIND_SERVER and route(span) == "/login/totp"
                and any(child["kind"] == SPAN_KIND_CLIENT for child in children(span))]
    expect(sign_ins, "the TOTP sign-in's request is a server span with the REST calls as client children")
    print("one sign-in's span tree, as received over OTLP:", flush=True)
    tree(sign_ins[-1])
    expect(any("mfaSignIn:finalize" in child["name"] for child in children(sign_ins[-1])),
           "among them the second factor's finalisation")
    checked = [span for span in spans if span["kind"] == SPAN_KIND_SERVER and route(span) == "/account"
               and any(child["name"] == "verifySessionCookie" for child in children(span))]
    expect(checked, "a signed-in page's request has the session cookie's verification as a child")
    orphans = [span for span in spans if span["parent"] and span["parent"] not in by_id
               and any(s["trace"] == span["trace"] and s["kind"] == SPAN_KIND_SERVER for s in spans)]
    expect(not orphans, f"every parent of the app's traces was received ({len(orphans)} orphans)")

    texts = []
    for span in spans:
        texts += [span["name"]] + list(span["attributes"].values())
        for event in span["events"]:
            texts += list(event.values())
    for metric in received["metrics"]:
        texts.append(metric["name"])
        for point in metric["attributes"]:
            texts += list(point.values())
    for resource in received["resources"]:
        texts += list(resource.values())
    secrets = {"the password": password, "the TOTP key": secret, "the code": code, "the email": email,
               "the session cookie": cookie}
    for name, value in secrets.items():
        expect(not any(value in text for text in texts), f"{name} is in no attribute")
    expect(not any(re.search(r"eyJ[A-Za-z0-9_-]{10,}", text) for text in texts), "no JWT is in any attribute")
    expect(not any("oobCode=" in text and "oobCode=REDACTED" not in text for text in texts), "no email-action code is in any attribute")
    metric_names = {metric["name"] for metric in received["metrics"]}
    expect("firebase_token_verifications_total" in metric_names, "the SDK's counters arrive over OTLP too")
    print("OTLP checks passed", flush=True)


if __name__ == "__main__":
    main()
