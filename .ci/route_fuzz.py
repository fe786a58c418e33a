#!/usr/bin/env python3
"""Every operation the emulator serves, with hostile values in every field.

Usage: route_fuzz.py PATH/TO/mfa [--limit-ops N] [--only OPERATION_ID]

Reads the OpenAPI documents the emulator is generated from (its
spec-codegen-config.json names them), and for each operation sends a
baseline request whose other fields are *valid* (a live ID token, a real
tenant, a URL that parses, a provider credential that reads), then the same
request with one field at a time replaced by a hostile value: invalid
percent escapes, JSON, NUL, lone surrogates, 64 KB, deep nesting and, for
numbers, the extremes. Path and query parameters get the same strings.

The run fails on any 5xx other than 501 (the emulator's documented "not
implemented") and on any crash, hang or dropped connection; a crash is
reported with the request that caused it and the emulator is started again,
so one run lists every such request. The emulator runs with
SWIFT_BACKTRACE=enable=no, so a crash ends the process at once.

Why this finds what schemathesis and libFuzzer did not: schemathesis draws
each field at random, so a request rarely has a valid ID token, tenant and
request URI at once, and most of its cases stop at the first check; the
fuzz harnesses reach parsers, not the rules behind them. Here every case
differs from a request that works in one field only, so the hostile value
reaches the code that reads that field.
"""
import http.client
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PROJECT = "demo-fuzz"
NOT_IMPLEMENTED = 501

DEEP = "[" * 2000 + "]" * 2000
HOSTILE_STRINGS = [
    "", "%", "%zz", "%E0%A4%A", "%00", "a%2", "+%+", "=&=&", "&&==%%", "\u0000", "a\u0000b", "\ud800", "\udfff\ud800",
    '{"sub":"fuzz","email":"fuzz@example.com","email_verified":true}', "[1,2,{\"a\":null}]", DEEP,
    "x" * 65536, "\u00e9" * 20000, "\U0001d11e" * 1000, "javascript:alert(1)\u0007", "\r\nX-Injected: 1",
    "../../../../etc/passwd", "http://[::1", "http://169.254.169.254/latest/meta-data/", "https://a:b@:-1/",
    "-1", "9223372036854775807", "-9223372036854775808", "99999999999999999999999", "1e400", "NaN", "-0",
    "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "a.b.c.d", "....", "@", "a@", "@b", "\u202e", "\ufeff",
]
NUMBER_EXTREMES = [
    0, -1, 2**31 - 1, -(2**31), 2**31, 2**32, 2**53 + 1, 2**63 - 1, -(2**63), 2**63, 2**64, 10**30, -(10**30),
    1.5, -0.5, 1e308, -1e308, 5e-324,
    "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e400", "NaN", "Infinity", "0x10", " 1",
]
OTHER_VALUES = [None, True, 2, "yes", {}, [], {"a": {"b": {"c": []}}}, json.loads("[" * 200 + "]" * 200)]


class Spec:
    """The OpenAPI documents, with `$ref`s across them resolved."""

    def __init__(self, paths):
        self.documents = {}
        for path in paths:
            with open(path) as file:
                self.documents[os.path.basename(path)] = yaml.safe_load(file)

    def resolve(self, node, document):
        """The node a `$ref` names (and the document it sits in), or the node."""
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 20:
            target, _, pointer = node["$ref"].partition("#")
            document = target or document
            node = self.documents[document]
            for part in pointer.strip("/").split("/"):
                node = node[part]
            seen += 1
        return node, document

    def operations(self):
        for name, document in self.documents.items():
            server = urllib.parse.urlparse(document.get("servers", [{"url": ""}])[0]["url"])
            prefix = "" if server.hostname in (None, "127.0.0.1") else "/" + server.hostname + server.path.rstrip("/")
            security = {key for entry in document.get("security", []) for key in entry}
            for path, item in (document.get("paths") or {}).items():
                for method, operation in item.items():
                    if method not in ("get", "post", "put", "patch", "delete"):
                        continue
                    op_security = {key for entry in operation.get("security", [{k: [] for k in security}]) for key in entry}
                    parameters = [self.resolve(p, name)[0] for p in item.get("parameters", []) + operation.get("parameters", [])]
                    body, form = None, False
                    content = (operation.get("requestBody") or {}).get("content", {})
                    if "application/json" in content:
                        body = self.resolve(content["application/json"]["schema"], name)
                    elif "application/x-www-form-urlencoded" in content:
                        body, form = self.resolve(content["application/x-www-form-urlencoded"]["schema"], name), True
                    yield {"id": operation.get("operationId", path), "method": method.upper(), "path": prefix + path,
                           "parameters": parameters, "body": body, "form": form, "admin": bool(op_security - {"apiKey"})}


class Emulator:
    def __init__(self, mfa):
        self.mfa, self.process, self.connection, self.starts = mfa, None, None, 0
        self.start()

    def start(self):
        environment = dict(os.environ, SWIFT_BACKTRACE="enable=no")
        self.process = subprocess.Popen([self.mfa, "emulator", "--port", "0", "--project", PROJECT],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
        line = self.process.stdout.readline().strip()
        assert line.startswith("listening on http://"), line
        self.host, _, port = line[len("listening on http://"):].partition(":")
        self.port = int(port)
        self.connection = None
        self.starts += 1

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def request(self, method, path, body=b"", headers=None, timeout=15):
        """(status, body bytes), or (None, what happened) when the connection failed."""
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
            try:
                self.connection.request(method, path, body=body or None, headers=headers or {})
                response = self.connection.getresponse()
                data = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.connection.close()
                    self.connection = None
                return response.status, data
            except (ConnectionError, http.client.HTTPException, OSError) as error:
                self.connection.close()
                self.connection = None
                if self.process.poll() is not None or attempt == 1:
                    return None, f"{type(error).__name__}: {error}"
        return None, "unreachable"


def call_json(emulator, method, path, body=None, admin=False):
    headers = {"Content-Type": "application/json"}
    if admin:
        headers["Authorization"] = "Bearer owner"
    status, data = emulator.request(method, path, json.dumps(body).encode() if body is not None else b"", headers)
    try:
        return status, json.loads(data or b"{}")
    except ValueError:
        return status, {}


class Baseline:
    """A fresh account, tenant and configuration for each operation, so that
    what one operation's cases changed (a deleted user, a moved clock) does
    not leave the next one nothing valid to send."""

    def __init__(self, emulator, serial):
        identity = "/identitytoolkit.googleapis.com"
        call_json(emulator, "POST", "/emulator/v1/clock", {"release": True}, admin=True)
        call_json(emulator, "PATCH", f"{identity}/v2/projects/{PROJECT}/config?updateMask=signIn.email,blockingFunctions,mfa",
                  {"signIn": {"email": {"enabled": True, "passwordRequired": True}}, "blockingFunctions": {},
                   "mfa": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}}, admin=True)
        _, tenant = call_json(emulator, "POST", f"{identity}/v2/projects/{PROJECT}/tenants",
                              {"displayName": "fuzz", "allowPasswordSignup": True}, admin=True)
        self.tenant = tenant.get("name", "x/fuzz").rsplit("/", 1)[-1]
        self.email = f"fuzz{serial}@example.com"
        _, user = call_json(emulator, "POST", f"{identity}/v1/accounts:signUp?key=fuzz",
                            {"email": self.email, "password": "secret-pw-1", "returnSecureToken": True})
        self.id_token = user.get("idToken", "missing")
        self.refresh_token = user.get("refreshToken", "missing")
        self.uid = user.get("localId", "missing")

    def string_for(self, name, schema):
        lowered = name.lower()
        if schema.get("enum"):
            return schema["enum"][0]
        hints = [
            (("idtoken", "id_token", "accesstoken"), self.id_token), (("refreshtoken", "refresh_token"), self.refresh_token),
            (("email",), self.email), (("password",), "secret-pw-1"), (("localid", "uid", "userid"), self.uid),
            (("tenant",), self.tenant), (("project",), PROJECT), (("requesturi", "continueurl", "uri", "url"), "http://localhost/cb"),
            (("postbody",), 'providerId=google.com&id_token={"sub":"fuzz-sub","email":"idp@example.com"}'),
            (("providerid",), "google.com"), (("phonenumber",), "+15555550100"), (("granttype", "grant_type"), "refresh_token"),
            (("mask",), "displayName"),
        ]
        for keys, value in hints:
            if any(key in lowered for key in keys):
                return value
        if schema.get("format") in ("int64", "uint64", "int32"):
            return "1"
        return "fuzz"


def baseline_value(spec, schema, document, name, baseline, depth=0):
    schema, document = spec.resolve(schema, document)
    if depth > 5 or not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "object" or "properties" in schema:
        value = {}
        for key, child in (schema.get("properties") or {}).items():
            child_value = baseline_value(spec, child, document, key, baseline, depth + 1)
            if child_value is not None:
                value[key] = child_value
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and not value:
            child_value = baseline_value(spec, extra, document, "key", baseline, depth + 1)
            if child_value is not None:
                value["key"] = child_value
        return value
    if kind == "array":
        item = baseline_value(spec, schema.get("items", {}), document, name, baseline, depth + 1)
        return [] if item is None else [item]
    if kind == "string":
        return baseline.string_for(name, schema)
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return True
    return None


def leaf_paths(spec, schema, document, depth=0):
    """(path, kind) of every field, objects' own fields included, to depth 4."""
    schema, document = spec.resolve(schema, document)
    if depth > 4 or not isinstance(schema, dict):
        return
    for key, child in (schema.get("properties") or {}).items():
        resolved, child_document = spec.resolve(child, document)
        kind = resolved.get("type") if isinstance(resolved, dict) else None
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        yield (key,), kind
        if kind == "array":
            items, items_document = spec.resolve(resolved.get("items", {}), child_document)
            item_kind = items.get("type") if isinstance(items, dict) else None
            if item_kind in ("object", None) and isinstance(items, dict) and "properties" in items:
                for path, leaf_kind in leaf_paths(spec, items, items_document, depth + 1):
                    yield (key, 0) + path, leaf_kind
            else:
                yield (key, 0), item_kind
        elif kind == "object" or (isinstance(resolved, dict) and "properties" in resolved):
            for path, leaf_kind in leaf_paths(spec, resolved, child_document, depth + 1):
                yield (key,) + path, leaf_kind


def replaced(value, path, new):
    """A copy of value with the field at path set to new (containers made as needed)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = list(value) if isinstance(value, list) else []
        if not items:
            items.append({} if rest and not isinstance(rest[0], int) else None)
        items[0] = replaced(items[0], rest, new)
        return items
    copy = dict(value) if isinstance(value, dict) else {}
    copy[head] = replaced(copy.get(head), rest, new)
    return copy


def values_for(kind):
    if kind in ("integer", "number"):
        return NUMBER_EXTREMES + HOSTILE_STRINGS[:6]
    if kind == "string":
        return HOSTILE_STRINGS + [1, -1, 2**63]
    return OTHER_VALUES + HOSTILE_STRINGS[:4]


def main():
    mfa = sys.argv[1]
    limit = int(sys.argv[sys.argv.index("--limit-ops") + 1]) if "--limit-ops" in sys.argv else None
    with open(os.path.join(ROOT, "Sources/IdentityToolkitEmulator/spec-codegen-config.json")) as file:
        config = json.load(file)
    base = os.path.join(ROOT, "Sources/IdentityToolkitEmulator")
    spec = Spec([os.path.normpath(os.path.join(base, path)) for path in config["specs"]])
    operations = list(spec.operations())[:limit]
    if "--only" in sys.argv:
        operations = [op for op in operations if op["id"] == sys.argv[sys.argv.index("--only") + 1]]
    emulator = Emulator(mfa)
    failures, cases, started = [], 0, time.monotonic()

    def send(operation, path, query, body_bytes, content_type, what):
        nonlocal cases
        cases += 1
        headers = {"Content-Type": content_type} if body_bytes else {}
        if operation["admin"]:
            headers["Authorization"] = "Bearer owner"
        target = path + ("?" + query if query else "")
        status, data = emulator.request(operation["method"], target, body_bytes, headers)
        if status is None or (status >= 500 and status != NOT_IMPLEMENTED):
            crashed = emulator.process.poll() is not None
            detail = data if status is None else data[:200].decode("utf-8", "replace")
            stderr = ""
            if crashed:
                stderr = emulator.process.stderr.read()[-600:]
                emulator.start()
            failures.append(f"{operation['method']} {operation['path']} ({operation['id']}), {what}: "
                            f"{'CRASH' if crashed else status} {detail} {stderr}".strip())
            print("FAIL", failures[-1][:700], flush=True)

    for number, operation in enumerate(operations):
        baseline = Baseline(emulator, number)
        params = {p["name"]: (p, spec.resolve(p.get("schema", {}), "x")[0]) for p in operation["parameters"] if isinstance(p, dict)}
        path_values = {name: str(baseline.string_for(name, schema) if schema.get("type", "string") == "string" else 1)
                       for name, (p, schema) in params.items() if p.get("in") == "path"}
        query_values = {name: baseline.string_for(name, schema) if schema.get("type", "string") == "string" else "1"
                        for name, (p, schema) in params.items() if p.get("in") == "query"}
        if not operation["admin"]:
            query_values.setdefault("key", "fuzz")
        body = None
        if operation["body"] is not None:
            schema, document = operation["body"]
            body = baseline_value(spec, schema, document, "body", baseline) or {}

        def render(path_values, query_values, body):
            path = operation["path"]
            for name, value in path_values.items():
                path = path.replace("{" + name + "}", urllib.parse.quote(value, safe="", errors="surrogatepass"))
            query = urllib.parse.urlencode(query_values, errors="surrogatepass")
            if body is None:
                return path, query, b"", ""
            if operation["form"]:
                flat = {k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()}
                return path, query, urllib.parse.urlencode(flat, errors="surrogatepass").encode(), "application/x-www-form-urlencoded"
            return path, query, json.dumps(body).encode(), "application/json"

        send(operation, *render(path_values, query_values, body), "baseline")
        for name in path_values:
            for value in HOSTILE_STRINGS:
                send(operation, *render(dict(path_values, **{name: value}), query_values, body), f"path {name}={value[:40]!r}")
        for name in query_values:
            for value in HOSTILE_STRINGS:
                send(operation, *render(path_values, dict(query_values, **{name: value}), body), f"query {name}={value[:40]!r}")
            path, query, body_bytes, content_type = render(path_values, query_values, body)
            send(operation, path, query + f"&{name}=%zz%&{name}=%E0%A4", body_bytes, content_type, f"query {name} raw escapes")
        if body is not None:
            schema, document = operation["body"]
            for field, kind in leaf_paths(spec, schema, document):
                for value in values_for(kind):
                    what = f"body {'.'.join(map(str, field))}={json.dumps(value)[:40]}"
                    send(operation, *render(path_values, query_values, replaced(body, field, value)), what)
            path, query, _, content_type = render(path_values, query_values, body)
            raw_bodies = [b'{"email":"\xff\xfe\xc0\xaf"}', b"\x00" * 64, DEEP.encode(), b'{"a":' * 5000 + b"1" + b"}" * 5000,
                          b"a=%zz&b=%&c=\xff&=&&d", b'{"a":1,"a":2}', b"x" * 70000]
            for raw in raw_bodies:
                send(operation, path, query, raw, content_type or "application/json", f"raw body {raw[:24]!r}")
        if (number + 1) % 10 == 0:
            print(f"{number + 1}/{len(operations)} operations, {cases} cases, {len(failures)} failures, "
                  f"{time.monotonic() - started:.0f}s", flush=True)

    emulator.stop()
    elapsed = time.monotonic() - started
    print(f"route fuzz: {len(operations)} operations, {cases} cases, {len(failures)} failures, "
          f"{emulator.starts - 1} crashes, {elapsed:.0f}s")
    if failures:
        print("\n".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
