#!/usr/bin/env python3
"""Symbol graphs of the package's modules, read off the build swift test made.

Usage: symbol_graphs.py BUILD_MANIFEST OUTPUT_DIR MODULE...

`swift package dump-symbol-graph` builds the package again before it
extracts: its build differs from `swift build --build-tests` (no test
targets, every trait of every package on), so it recompiled this package's
modules and Hummingbird's, 112 s of CI's DocC step at 11e25eb. The modules
swift test built are the same public API, so this runs
swift-symbolgraph-extract on them directly, with the options the plugin and
dump-symbol-graph use (public symbols, synthesized members, inherited docs,
extension blocks) and each module's own search paths, read from the build
manifest (BUILD_MANIFEST: `.build/debug.yaml`, written by the last
`swift build`). The output folder is emptied first.
"""
import json
import os
import re
import shutil
import subprocess
import sys

if len(sys.argv) < 4:
    sys.exit("usage: symbol_graphs.py BUILD_MANIFEST OUTPUT_DIR MODULE...")
manifest_path, output, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    manifest = open(manifest_path).read()
except OSError as error:
    sys.exit(f"{manifest_path}: {error.strerror} (build the package first: swift build --build-tests)")

# The flags swift-symbolgraph-extract takes from a module's compile command:
# where modules and C headers are, the target, and the module cache.
PAIRED = {"-I", "-F", "-target", "-sdk", "-resource-dir", "-module-cache-path", "-Xcc"}


def compile_arguments(module):
    """The swiftc arguments of MODULE's compile command in the manifest."""
    match = re.search(r'^  "C\.' + re.escape(module) + r'-[^"]*\.module":\n(?:    .*\n)*?    args: (\[.*\])$', manifest, re.M)
    if not match:
        sys.exit(f"{manifest_path} has no compile command for {module}: is it a module of this package, and built?")
    # The manifest is YAML whose args are a JSON array of strings.
    return json.loads(match.group(1))


def extract_flags(arguments):
    flags, index = [], 0
    while index < len(arguments):
        argument = arguments[index]
        if argument in PAIRED and index + 1 < len(arguments):
            flags += [argument, arguments[index + 1]]
            index += 2
        else:
            index += 1
    return flags


shutil.rmtree(output, ignore_errors=True)
os.makedirs(output)
tool = shutil.which("swift-symbolgraph-extract")
if tool is None:
    swiftc = shutil.which("swiftc")
    candidate = os.path.join(os.path.dirname(swiftc or ""), "swift-symbolgraph-extract")
    tool = candidate if os.path.exists(candidate) else sys.exit("swift-symbolgraph-extract is not next to swiftc")
for module in modules:
    command = [tool, "-module-name", module, *extract_flags(compile_arguments(module)),
               "-minimum-access-level", "public", "-emit-extension-block-symbols", "-output-dir", output]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"swift-symbolgraph-extract failed for {module}:\n{result.stdout}{result.stderr}")
    print(f"symbol graph: {module}")
print(f"{len(modules)} modules' symbol graphs in {output}")
