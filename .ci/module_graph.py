#!/usr/bin/env python3
"""The module graph's rules (issue 37, items 3 and 4): what each library
product builds, from `swift package dump-package`, and the edges it must
never have. Prints each product's modules and external packages; exits 1
naming every broken rule.

Usage: swift package --enable-all-traits dump-package | python3 .ci/module_graph.py
"""
import json
import sys

from manifest import reached, targets_by_name

# product -> modules (of this package) it must never build, and why.
FORBIDDEN = {
    "IdentityStoresPostgres": {
        "MultiFactorAuth": "the Firebase-shaped client: sessions live in MultiFactorAuth's ExpiringStateAuthSessionStore",
        "IdentityToolkit": "the generated REST client and its build plugin",
        "IdentityServerState": "sealing (swift-crypto's AES-GCM) is the app's wrapper, not the store's",
        "IdentityOTP": "the product is the two primitives on PostgreSQL: IdentityOTP builds its stores on them",
    },
    "IdentityKeyValueStore": {
        "IdentityOTP": "the primitive is Foundation only",
        "IdentityToolkit": "the primitive is Foundation only",
    },
    "IdentityServerState": {
        "IdentityOTP": "the expiring entries come from IdentitySupport",
        "MultiFactorAuth": "state is stored whole; the snapshots' types are the app's",
    },
    "MultiFactorAuth": {
        "IdentityOTP": "client apps build no BoringSSL (IdentityOTPFormats only)",
        "IdentityServerState": "client apps build no BoringSSL",
    },
}

# product -> packages it must never build, and why.
FORBIDDEN_PACKAGES = {
    "MultiFactorAuth": {"swift-crypto": "client apps build no BoringSSL", "postgres-nio": "a client has no database"},
    "IdentityKeyValueStore": {"swift-crypto": "the primitive is Foundation only", "postgres-nio": "the primitive is Foundation only"},
    "IdentityStoresPostgres": {"swift-crypto": "its modules are the primitives on postgres-nio: no OTP, no sealing (postgres-nio uses swift-crypto for its own authentication)"},
}

package = json.load(sys.stdin)
targets = targets_by_name(package)


broken = []
for product in package["products"]:
    if "library" not in product["type"] or product["name"].startswith("_"):
        continue
    modules, packages = set(), set()
    for target in product["targets"]:
        more_modules, more_packages = reached(targets, [target])
        modules |= more_modules
        packages |= more_packages
    print(f"{product['name']}: {len(modules)} modules ({', '.join(sorted(modules))}); packages: {', '.join(sorted(packages)) or 'none'}")
    for module, reason in FORBIDDEN.get(product["name"], {}).items():
        if module in modules:
            broken.append(f"{product['name']} builds {module}, which it must not: {reason}")
    for name, reason in FORBIDDEN_PACKAGES.get(product["name"], {}).items():
        if name in packages:
            broken.append(f"{product['name']} builds the package {name}, which it must not: {reason}")
for rule in broken:
    print("error: " + rule, file=sys.stderr)
sys.exit(1 if broken else 0)
