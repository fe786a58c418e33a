#!/usr/bin/env python3
"""Spec/ beside Google's own discovery documents of Identity Toolkit (the
identitytoolkit v1, v2 and v3 JSON that google-api-python-client ships).

Usage: spec_vs_discovery.py DISCOVERY_DIR [--fail-on-breaking]

Each production operation of Spec/ (documents without `x-emulator-only`) is
matched to Google's method by host, path (every `{…}` segment alike) and
HTTP method, and its request body is compared with Google's request schema,
field by field, recursively:

- breaking: a field the spec lets a client send that Google's request type
  does not have (production answers `Unknown name`), or a field whose kind
  differs (an object where Google has a map, a list where it has one value);
- risk: an operation of the spec that Google does not describe;
- note: a response field Google does not describe (harmless to a client).

An operation with `x-emulator-request-body` instead of `requestBody` (the
legacy v3 routes, served by the emulator only) has no client: nothing of
ours sends its body, so it is listed, not compared.

A few fields production takes although Google's discovery document leaves
them out are listed in DOCUMENTED_EXTRAS, and a few operations in
DOCUMENTED_OPERATIONS, each with where production documents it (reported
as `documented:`); an entry that no longer matches anything fails the
check, so the lists stay true. A documented operation's body has no
Google type to be compared with: it is listed, not compared.

A PATCH whose Google method takes an `updateMask` replaces every settable
field when the mask is missing or empty, so a spec schema that models fewer
fields than Google's request type would reset the rest: such an operation
must declare its mask `x-client-required` (the generated client then always
sends one), else it is breaking, naming the fields a maskless call resets.

Prints every difference and a closing count. With --fail-on-breaking it
exits 1 when a breaking difference, a risk or a stale exception is found.
"""

# (Google's request type, field): where production documents the field.
DOCUMENTED_EXTRAS = {
    ("GoogleCloudIdentitytoolkitV1SignUpRequest", "returnSecureToken"):
        "Firebase Auth REST API reference, 'Sign up with email / password' "
        "(https://firebase.google.com/docs/reference/rest/auth#section-create-email-password) "
        "lists it in the request body; every Firebase client SDK sends it",
    ("GoogleCloudIdentitytoolkitV1SetAccountInfoRequest", "deletePasskey"):
        "the Firebase Apple SDK's SetAccountInfoRequest sends it to remove passkeys "
        "(FirebaseAuth/Sources/Swift/Backend/RPC/SetAccountInfoRequest.swift)",
}

# (path, HTTP method): where production documents an operation Google's
# discovery documents leave out.
_PASSKEYS = ("the Firebase Apple SDK's passkey calls (FirebaseAuth/Sources/Swift/Backend/RPC/"
             "{Start,Finalize}Passkey{Enrollment,SignIn}Request.swift) send it to production")
DOCUMENTED_OPERATIONS = {
    ("/v2/accounts/passkeyEnrollment:start", "POST"): _PASSKEYS,
    ("/v2/accounts/passkeyEnrollment:finalize", "POST"): _PASSKEYS,
    ("/v2/accounts/passkeySignIn:start", "POST"): _PASSKEYS,
    ("/v2/accounts/passkeySignIn:finalize", "POST"): _PASSKEYS,
}
import glob
import json
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_discovery(directory):
    """Google's methods by (host+path pattern, HTTP method), and its schemas."""
    methods, schemas = {}, {}
    for path in sorted(glob.glob(os.path.join(directory, "identitytoolkit.v*.json"))):
        document = json.load(open(path))
        base = re.sub(r"^https?://", "", document["rootUrl"]) + document.get("servicePath", "")
        version = document["version"]
        for name, schema in document.get("schemas", {}).items():
            schemas[(version, name)] = schema

        def walk(resources):
            for resource in resources.values():
                for method in resource.get("methods", {}).values():
                    for template in {method.get("flatPath", method["path"]), method["path"]}:
                        key = (pattern(base + template), method["httpMethod"].upper())
                        methods[key] = (version, method)
                walk(resource.get("resources", {}))
        walk(document.get("resources", {}))
        for method in document.get("methods", {}).values():
            methods[(pattern(base + method["path"]), method["httpMethod"].upper())] = (version, method)
    return methods, schemas


def pattern(url):
    """A URL with every `{…}` segment alike and no leading slash."""
    return re.sub(r"\{[^}]*\}", "{}", url).replace("//", "/").lstrip("/")


def google_kind(schema, schemas, version):
    """('object', properties) | ('free', None) | ('map', value) | ('array', items) | ('scalar', type).

    A message with no fields (`properties: {}`, such as `TotpInfo`) is an
    object that takes nothing; only an object without `properties` (or
    whose values are `any`) is a free-form JSON value."""
    if not isinstance(schema, dict):
        return ("scalar", "any")  # additionalProperties: true
    if "$ref" in schema:
        return google_kind(schemas.get((version, schema["$ref"]), {}), schemas, version)
    if schema.get("type") == "array":
        return ("array", schema.get("items", {}))
    if schema.get("type") == "object" and "additionalProperties" in schema and "properties" not in schema:
        values = schema["additionalProperties"]
        if isinstance(values, dict) and values.get("type") == "any":
            return ("free", None)
        return ("map", values)
    if "properties" in schema:
        return ("object", schema["properties"])
    if schema.get("type") == "object":
        return ("free", None)
    return ("scalar", schema.get("type"))


def spec_kind(schema, components):
    if not isinstance(schema, dict):
        return ("scalar", "any")  # additionalProperties: true
    if "$ref" in schema:
        return spec_kind(components[schema["$ref"].split("/")[-1]], components)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "array":
        return ("array", schema.get("items", {}))
    if "properties" in schema:
        return ("object", schema["properties"])
    if kind == "object" and "additionalProperties" in schema:
        return ("map", schema["additionalProperties"])
    if kind == "object":
        return ("object", {})
    return ("scalar", kind)


def google_type_name(schema):
    """The name of Google's schema behind `schema` (a `$ref`), if any."""
    return schema.get("$ref") if isinstance(schema, dict) else None


def compare(ours, theirs, components, schemas, version, where, findings, seen, used_extras):
    """Every field of `ours` a client may send must be in `theirs`, of the same kind."""
    key = (json.dumps(ours, sort_keys=True), json.dumps(theirs, sort_keys=True))
    if key in seen:
        return
    seen.add(key)
    our_kind, our_value = spec_kind(ours, components)
    their_kind, their_value = google_kind(theirs, schemas, version)
    if their_kind == "free" and our_kind in ("object", "map"):
        return  # Google's free-form object (a JSON value): anything goes
    if our_kind != their_kind and not (our_kind == "scalar" and their_kind == "scalar"):
        findings.append(("breaking", f"{where}: the spec has {our_kind}, Google has {their_kind}"))
        return
    if our_kind == "object":
        for name, field in our_value.items():
            if field.get("readOnly"):
                continue
            if name not in their_value:
                extra = (google_type_name(theirs), name)
                if extra in DOCUMENTED_EXTRAS:
                    used_extras.add(extra)
                    findings.append(("documented", f"{where}.{name}: not in Google's discovery document; {DOCUMENTED_EXTRAS[extra]}"))
                else:
                    findings.append(("breaking", f"{where}.{name}: not in Google's request type (production answers 'Unknown name')"))
                continue
            compare(field, their_value[name], components, schemas, version, f"{where}.{name}", findings, seen, used_extras)
    elif our_kind in ("array", "map"):
        compare(our_value, their_value, components, schemas, version, f"{where}[]", findings, seen, used_extras)


def parameters_of(operation, document):
    """The operation's parameters, `$ref`s to the document's components resolved."""
    shared = document.get("components", {}).get("parameters", {})
    result = []
    for parameter in operation.get("parameters", []):
        if "$ref" in parameter:
            parameter = shared.get(parameter["$ref"].split("/")[-1], {})
        result.append(parameter)
    return result


def check_mask(operation, method, schema, components, schemas, version, name, document, findings):
    """A PATCH with a field mask must not let a client send it without one
    when the spec cannot send every field a maskless update replaces."""
    if method["httpMethod"].upper() != "PATCH" or "updateMask" not in method.get("parameters", {}):
        return
    their_kind, their_fields = google_kind(method["request"], schemas, version)
    our_kind, our_fields = spec_kind(schema, components)
    if their_kind != "object" or our_kind != "object":
        return
    settable = {field for field, value in their_fields.items()
                if not (isinstance(value, dict) and (value.get("readOnly") or "Output only" in value.get("description", "")))}
    unmodelled = sorted(settable - set(our_fields))
    if not unmodelled:
        return
    mask = next((p for p in parameters_of(operation, document) if p.get("name") == "updateMask"), None)
    if mask is None or not (mask.get("required") or mask.get("x-client-required")):
        findings.append(("breaking", f"{name} ({operation.get('operationId')}): without an update mask production replaces every settable field, "
                                     f"and the spec cannot send {len(unmodelled)} of them ({', '.join(unmodelled)}): "
                                     "declare updateMask x-client-required"))
    else:
        findings.append(("note", f"{name} ({operation.get('operationId')}): its mask is client-required; a maskless call would reset "
                                 f"{len(unmodelled)} unmodelled fields ({', '.join(unmodelled)})"))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    methods, schemas = load_discovery(sys.argv[1])
    findings = []
    used_extras = set()
    used_operations = set()
    compared = 0
    # Schemas by name across the documents (a `$ref` may name another file;
    # the generator makes one Swift type per name, so names are unique).
    components = {}
    documents = []
    for path in sorted(glob.glob(os.path.join(ROOT, "Spec", "*.yaml"))):
        text = open(path).read()
        if text.startswith("openapi:"):
            document = yaml.safe_load(text)
            components.update(document.get("components", {}).get("schemas", {}))
            documents.append((path, document))
    for path, document in documents:
        if document.get("info", {}).get("x-emulator-only"):
            continue
        server = re.sub(r"^https?://", "", document["servers"][0]["url"])
        if not server.startswith(("identitytoolkit.googleapis.com", "www.googleapis.com/identitytoolkit")):
            continue  # securetoken, OAuth2 and the key routes have no discovery document here
        for route, operations in document.get("paths", {}).items():
            for http_method, operation in operations.items():
                if http_method.startswith("x-") or not isinstance(operation, dict):
                    continue
                name = f"{os.path.basename(path)} {http_method.upper()} {route}"
                match = methods.get((pattern(server + "/" + route.lstrip("/")), http_method.upper()))
                if match is None and (route, http_method.upper()) in DOCUMENTED_OPERATIONS:
                    used_operations.add((route, http_method.upper()))
                    findings.append(("documented", f"{name} ({operation.get('operationId')}): not in Google's discovery documents; "
                                                   f"{DOCUMENTED_OPERATIONS[(route, http_method.upper())]}"))
                    continue
                if match is None:
                    findings.append(("risk", f"{name} ({operation.get('operationId')}): Google describes no such method"))
                    continue
                version, method = match
                if "x-emulator-request-body" in operation and "requestBody" not in operation:
                    findings.append(("emulator", f"{name} ({operation.get('operationId')}): the emulator's body only; no client sends it"))
                    continue
                compared += 1
                body = operation.get("requestBody", {}).get("content", {})
                schema = next(iter(body.values()), {}).get("schema") if body else None
                if schema is None:
                    continue
                if "request" not in method:
                    findings.append(("breaking", f"{name}: the spec sends a body; Google's method takes none"))
                    continue
                compare(schema, method["request"], components, schemas, version,
                        f"{name} {method['request']['$ref']}", findings, set(), used_extras)
                check_mask(operation, method, schema, components, schemas, version, name, document, findings)
    for extra in sorted(set(DOCUMENTED_EXTRAS) - used_extras):
        findings.append(("stale", f"{extra[0]}.{extra[1]}: listed as an exception but no longer sent; remove it"))
    for operation in sorted(set(DOCUMENTED_OPERATIONS) - used_operations):
        findings.append(("stale", f"{operation[1]} {operation[0]}: listed as an exception but the spec no longer has it, "
                                  "or Google's documents now do; remove it"))
    order = {"breaking": 0, "risk": 1, "stale": 2, "documented": 3, "emulator": 4, "note": 5}
    for kind, text in sorted(set(findings), key=lambda f: (order[f[0]], f[1])):
        print(f"{kind}: {text}")
    breaking = len({f for f in findings if f[0] == "breaking"})
    risks = len({f for f in findings if f[0] == "risk"})
    stale = len({f for f in findings if f[0] == "stale"})
    print(f"{compared} operations compared with Google's discovery documents: {breaking} breaking differences, {risks} risks"
          + (f", {stale} stale exceptions" if stale else ""))
    if "--fail-on-breaking" in sys.argv and (breaking or risks or stale):
        sys.exit(1)


if __name__ == "__main__":
    main()
