#!/usr/bin/env python3
"""Every public symbol of the documented modules has a doc comment.

Usage: doc_coverage.py SYMBOLGRAPH_DIR MODULE...

Reads the symbol graphs of `.ci/symbol_graphs.py` or `swift package
dump-symbol-graph` (the module's own file and its extension files,
`Module@Other.symbols.json`) and lists each public or open symbol without a
doc comment, generated code included. Left
out, as DocC leaves them out: underscored names, the members the compiler
synthesizes, and extension blocks (their members are counted). A symbol
that implements a protocol requirement and has no comment of its own
counts as documented when the graph gives it the requirement's (DocC shows
that one). Exits 1 when any symbol is missing one.
"""
import glob
import json
import os
import sys

directory, modules = sys.argv[1], sys.argv[2:]
if not modules:
    sys.exit("usage: doc_coverage.py SYMBOLGRAPH_DIR MODULE...")

failures = 0
for module in modules:
    paths = [os.path.join(directory, f"{module}.symbols.json")] + sorted(glob.glob(os.path.join(directory, f"{module}@*.symbols.json")))
    if not os.path.exists(paths[0]):
        sys.exit(f"no symbol graph for {module} in {directory}")
    total, missing = 0, []
    seen = set()
    for path in paths:
        with open(path) as file:
            graph = json.load(file)
        for symbol in graph["symbols"]:
            identifier = symbol["identifier"]["precise"]
            components = symbol["pathComponents"]
            if identifier in seen or symbol.get("accessLevel") not in ("public", "open"):
                continue
            seen.add(identifier)
            if "::SYNTHESIZED::" in identifier or any(part.startswith("_") for part in components):
                continue
            # An extension block of another module's type: its members carry
            # the comments (DocC lists it under "Extended Types").
            if symbol["kind"]["identifier"] == "swift.extension":
                continue
            total += 1
            lines = (symbol.get("docComment") or {}).get("lines") or []
            if not any(line.get("text", "").strip() for line in lines):
                location = symbol.get("location", {})
                where = location.get("uri", "").replace("file://", "")
                line = location.get("position", {}).get("line", -1) + 1
                missing.append(f"{where}:{line}: {'.'.join(components)} ({symbol['kind']['displayName']})")
    documented = total - len(missing)
    print(f"{module}: {documented} of {total} public symbols documented")
    for entry in missing:
        print("  undocumented:", entry)
    failures += len(missing)

sys.exit(1 if failures else 0)
