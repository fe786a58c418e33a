#!/usr/bin/env python3
"""Proves `spec-codegen api-diff` against the ground truth.

For every mutation of Tests/APIDiffCorpus/mutations.json, the package's
generated API is rebuilt from the mutated Spec/ and
`swift package diagnose-api-breaking-changes` compares it with the unmutated
baseline; api-diff's verdict (breaking or not) must equal the digester's, and
both the corpus's `expect`. The builds happen in two small probe packages
(IdentityToolkit; IdentityToolkit + IdentityOTPFormats + MultiFactorAuth) made from
this checkout, so that a mutation the hand-written server or admin code would
not compile with still gets its verdict. Each probe builds its baseline once
(--baseline-dir); a mutation rebuilds what it touches.

Usage: api_diff_corpus.py SPEC_CODEGEN_BINARY WORK_FOLDER
Prints one line per mutation, the agreement figure and the time; exits 1 on
any disagreement.
"""
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBES = {
    "toolkit": ["IdentityToolkit"],
    "auth": ["IdentityToolkit", "IdentityOTPFormats", "MultiFactorAuth"],
}

# Modules every probe builds (IdentityToolkit and MultiFactorAuth depend on
# them) without comparing their API.
SUPPORT = ["IdentitySupport", "IdentityOTPFormats", "IdentityKeyValueStore"]

# The targets below mirror their definitions in the root Package.swift (same
# dependencies, floors and settings); a drift shows as a baseline that does
# not build or does not compare clean, which stops the run.
MANIFEST = """// swift-tools-version: 6.1
// A probe made by .ci/api_diff_corpus.py: the root package's generated
// libraries and the generator, without the modules a mutation may not build.
import PackageDescription

let package = Package(
    name: "api-diff-probe",
    platforms: [.macOS(.v14)],
    products: [%(products)s],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    ],
    targets: [
        .target(name: "SpecCodegen", dependencies: [.product(name: "Yams", package: "Yams")], path: "Generator/SpecCodegen"),
        .executableTarget(name: "spec-codegen-plugin-tool", dependencies: ["SpecCodegen"], path: "Generator/spec-codegen-plugin-tool"),
        .plugin(name: "SpecCodegenPlugin", capability: .buildTool(), dependencies: ["spec-codegen-plugin-tool"], path: "Plugins/SpecCodegenPlugin"),
        .target(name: "IdentitySupport"),
        .target(name: "IdentityOTPFormats"),
        .target(name: "IdentityKeyValueStore", dependencies: ["IdentitySupport"]),
        .target(
            name: "IdentityToolkit",
            dependencies: [
                "IdentitySupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["spec-codegen-config.json"], plugins: ["SpecCodegenPlugin"]
        ),
%(extra)s
    ],
    swiftLanguageModes: [.v6]
)
for target in package.targets where target.type != .plugin {
    target.swiftSettings = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")]
}
"""

AUTH_TARGETS = """        .target(
            name: "MultiFactorAuth",
            dependencies: ["IdentityToolkit", "IdentityOTPFormats", "IdentitySupport", "IdentityKeyValueStore",
                           .product(name: "HTTPTypes", package: "swift-http-types")],
            exclude: ["spec-codegen-config.json"], plugins: ["SpecCodegenPlugin"]
        ),"""


def run(command, cwd, check=True):
    result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:])
        raise SystemExit(f"failed: {' '.join(command)}")
    return result


def make_probe(name, modules, folder):
    if os.path.exists(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    for part in ["Generator", "Plugins", "Spec"]:
        shutil.copytree(os.path.join(ROOT, part), os.path.join(folder, part))
    for module in dict.fromkeys(SUPPORT + modules):
        shutil.copytree(os.path.join(ROOT, "Sources", module), os.path.join(folder, "Sources", module))
    products = ", ".join(f'.library(name: "{m}", targets: ["{m}"])' for m in modules)
    extra = AUTH_TARGETS if "MultiFactorAuth" in modules else ""
    with open(os.path.join(folder, "Package.swift"), "w") as manifest:
        manifest.write(MANIFEST % {"products": products, "extra": extra})
    run(["git", "init", "-q"], folder)
    run(["git", "add", "-A"], folder)
    run(["git", "-c", "user.name=corpus", "-c", "user.email=corpus@localhost", "commit", "-qm", "baseline"], folder)


def digester(folder, products):
    """True when the digester finds a break; None when it could not run."""
    command = ["swift", "package", "diagnose-api-breaking-changes", "HEAD", "--baseline-dir", os.path.join(folder, ".baseline")]
    for product in products:
        command += ["--products", product]
    result = run(command, folder, check=False)
    breaks = [line.strip() for line in result.stdout.splitlines() if "API breakage:" in line]
    if result.returncode != 0 and not breaks:
        sys.stderr.write(result.stdout[-3000:])
        return None, []
    return bool(breaks), breaks


def main():
    binary, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with open(os.path.join(ROOT, "Tests/APIDiffCorpus/mutations.json")) as corpus_file:
        mutations = json.load(corpus_file)["mutations"]
    started = time.time()
    agreed, total, failures = 0, 0, []
    for probe, modules in PROBES.items():
        chosen = [m for m in mutations if m["probe"] == probe]
        if not chosen:
            continue
        folder = os.path.join(work, probe)
        print(f"probe {probe}: {', '.join(modules)} ({len(chosen)} mutations)", flush=True)
        make_probe(probe, modules, folder)
        baseline_started = time.time()
        clean, lines = digester(folder, modules)
        if clean is None or clean:
            raise SystemExit(f"the unmutated probe {probe} does not compare clean with itself: {lines}")
        print(f"  baseline built and compared in {time.time() - baseline_started:.0f} s", flush=True)
        for mutation in chosen:
            total += 1
            path = os.path.join(folder, "Spec", mutation["file"])
            with open(path) as spec:
                original = spec.read()
            if original.count(mutation["find"]) != 1:
                failures.append(f"{mutation['name']}: `find` does not occur exactly once")
                continue
            with open(path, "w") as spec:
                spec.write(original.replace(mutation["find"], mutation["replace"]))
            one_started = time.time()
            predicted = run([binary, "api-diff", os.path.join(ROOT, "Spec", mutation["file"]), path, "--package", folder], folder, check=False)
            if predicted.returncode not in (0, 1):
                failures.append(f"{mutation['name']}: api-diff exited {predicted.returncode}: {predicted.stdout.strip()}")
            actual, breaks = digester(folder, modules)
            seconds = time.time() - one_started
            with open(path, "w") as spec:
                spec.write(original)
            predicted_breaking = predicted.returncode == 1
            expected_breaking = mutation["expect"] == "breaking"
            ok = actual is not None and predicted_breaking == actual == expected_breaking
            agreed += ok
            verdict = "n/a" if actual is None else ("breaking" if actual else "compatible")
            print(f"  {'ok ' if ok else 'BAD'} {mutation['name']}: api-diff {'breaking' if predicted_breaking else 'compatible'}, "
                  f"digester {verdict}, expected {mutation['expect']} ({seconds:.0f} s)", flush=True)
            if not ok:
                failures.append(f"{mutation['name']}: api-diff said\n{predicted.stdout}\n  the digester said {breaks}")
    minutes = (time.time() - started) / 60
    print(f"api-diff agrees with diagnose-api-breaking-changes on {agreed} of {total} mutations "
          f"({100 * agreed / max(total, 1):.0f} %) in {minutes:.1f} min")
    for failure in failures:
        print("  " + failure)
    raise SystemExit(0 if not failures and agreed == total else 1)


if __name__ == "__main__":
    main()
