#!/usr/bin/env python3
"""Which of CI's long checks must run: each check's inputs, hashed, against
the hashes recorded at its last full, passing run (.ci/verified-inputs).

The rule (issue 37, item 5): a check is skipped only when every file it
depends on, and the toolchain, are byte for byte those of a run that passed.
So a full run happens on every change of the fuzzed parsers (each harness
lists the sources it reaches) and of the concurrency code the sanitized
suites run (every module they reach, read from the manifest). Inputs are read from the
commit (git's blob hashes), so an uncommitted change always runs the check;
DocC catalogs (`*.docc/`) are no check's input.

Usage:
  inputs.py pending NAME...   prints the names whose inputs differ from the record
  inputs.py record NAME...    writes the current hashes of NAME... into the record
  inputs.py show NAME         prints NAME's inputs and hash
"""
import hashlib
import json
import os
import subprocess
import sys

from manifest import reached, targets_by_name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORD = os.path.join(ROOT, ".ci", "verified-inputs")

# What every fuzz run builds and runs with.
FUZZ_COMMON = ["Package.swift", "Fuzz/Harnesses", "Fuzz/Driver", "Fuzz/Runner", ".ci/fuzz"]
# The generated types and the runtime the IdentityToolkit harnesses parse with.
TOOLKIT = ["Sources/IdentityToolkit", "Sources/IdentitySupport", "Spec", "Generator", "Plugins"]
FORMATS = ["Sources/IdentityOTPFormats"]

INPUTS = {
    "fuzz:base32": FUZZ_COMMON + FORMATS,
    "fuzz:otpauth": FUZZ_COMMON + FORMATS,
    "fuzz:qr": FUZZ_COMMON + FORMATS,
    "fuzz:jwt": FUZZ_COMMON + TOOLKIT,
    "fuzz:protojson": FUZZ_COMMON + TOOLKIT,
    "fuzz:cachecontrol": FUZZ_COMMON + TOOLKIT,
    "fuzz:rfc3339": FUZZ_COMMON + TOOLKIT,
    "fuzz:form": FUZZ_COMMON + TOOLKIT,
    "fuzz:stepup": FUZZ_COMMON + TOOLKIT,
    "fuzz:spec": FUZZ_COMMON + ["Generator"],
    # The thread sanitizer's run: what builds and runs it; the sources of
    # the modules its suites reach are added from the manifest (tsan_inputs).
    "tsan": ["Package.swift", "Spec", "Generator", "Plugins", ".ci/tsan", ".ci/tsan.supp"],
}
for name in [n for n in INPUTS if n.startswith("fuzz:")]:
    INPUTS[name] = INPUTS[name] + ["Fuzz/Corpus/" + name.split(":", 1)[1]]


def tsan_test_targets():
    """The test targets whose suites .ci/tsan runs: its `--filter` names
    them, so the list has one home."""
    for line in open(os.path.join(ROOT, ".ci", "tsan")):
        if "--filter" in line:
            return line.split("--filter", 1)[1].split('"')[1].split("|")
    raise SystemExit(".ci/tsan names no --filter: the sanitized suites are unknown")


def tsan_inputs():
    """The folders of every target the sanitized suites reach, themselves
    included (`swift package dump-package`): a change to a module they
    cannot load (the PostgreSQL stores, the CLI, the Vapor adapter) runs no
    sanitizer. Every Sources/ and Tests/ folder when the manifest cannot be read."""
    try:
        dump = subprocess.run(["swift", "package", "--enable-all-traits", "dump-package"], cwd=ROOT, check=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        targets = targets_by_name(json.loads(dump))
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError):
        return ["Sources", "Tests"]
    modules, _ = reached(targets, tsan_test_targets())
    folders = []
    for name in sorted(modules):
        target = targets[name]
        default = ("Tests/" if target["type"] == "test" else "Sources/") + name
        folders.append(target.get("path") or default)
    return folders


def inputs(name):
    """NAME's input paths."""
    return INPUTS[name] + (tsan_inputs() if name == "tsan" else [])


def git(*arguments):
    return subprocess.run(["git", *arguments], cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout


def toolchain():
    result = subprocess.run(["swift", "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return result.stdout.splitlines()[0] if result.stdout else "no swift"


def digest(name):
    """The hash of NAME's committed inputs, or None when one of them has an uncommitted change."""
    paths = inputs(name)
    changed = git("diff", "--name-only", "HEAD", "--", *paths).splitlines() + git("ls-files", "--others", "--exclude-standard", "--", *paths).splitlines()
    if any(".docc/" not in path for path in changed):
        return None
    # DocC catalogs sit under Sources/ but no check builds or runs them.
    listing = "".join(line + "\n" for line in git("ls-tree", "-r", "HEAD", "--", *paths).splitlines() if ".docc/" not in line)
    return hashlib.sha256((listing + toolchain()).encode()).hexdigest()[:32]


def recorded():
    entries = {}
    if os.path.exists(RECORD):
        for line in open(RECORD):
            if line.strip() and not line.startswith("#"):
                name, value = line.split()[:2]
                entries[name] = value
    return entries


def main(arguments):
    if len(arguments) < 2 or arguments[0] not in ("pending", "record", "show"):
        raise SystemExit(__doc__)
    command, names = arguments[0], arguments[1:]
    unknown = [n for n in names if n not in INPUTS]
    if unknown:
        raise SystemExit(f"unknown check(s): {', '.join(unknown)} (known: {', '.join(INPUTS)})")
    if command == "pending":
        entries = recorded()
        print(" ".join(n for n in names if digest(n) is None or entries.get(n) != digest(n)))
    elif command == "show":
        for name in names:
            print(f"{name} {digest(name) or '(uncommitted changes)'}: {' '.join(inputs(name))}")
    else:
        entries = recorded()
        for name in names:
            value = digest(name)
            if value is None:
                raise SystemExit(f"{name}: its inputs have uncommitted changes; commit them, run the check, then record")
            entries[name] = value
        with open(RECORD, "w") as record:
            record.write("# Each long check's inputs (git blob hashes and the toolchain, hashed) at its\n"
                         "# last full, passing run: .ci/run skips a check while its hash holds.\n"
                         "# Written by `.ci/inputs.py record NAME...` after the run (.ci/run prints the command).\n")
            for name in sorted(entries):
                record.write(f"{name} {entries[name]}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
