#!/usr/bin/env python3
"""The figures of a run of Google's suites, and what they are held to.

Usage: report.py RESULTS_DIR [--expected FILE [--prune]] [--readme FILE [--write]] [--mode NAME]

Reads the workers' shard-*.json (run.js), prints each suite's figures and
the total. With --expected, the run fails when a case fails that the file
does not list, and when a listed case passes (so the list only shrinks);
each entry is `SUITE :: FULL TITLE`, under a `# reason:` line naming the
documented difference, or the issue item, that explains it. With --readme,
--prune takes the cases that now pass off the list (with their reason
lines) instead of failing. With --readme, the README's figures for this mode (between `<!-- suites:MODE -->` and
`<!-- /suites:MODE -->`) must be this run's; --write puts them there.
"""
import glob
import json
import os
import re
import sys


def arguments(argv):
    options = {"results": argv[1], "expected": None, "readme": None, "write": False, "prune": False, "mode": "default"}
    rest = argv[2:]
    while rest:
        name = rest.pop(0)
        if name == "--write":
            options["write"] = True
        elif name == "--prune":
            options["prune"] = True
        elif name in ("--expected", "--readme", "--mode"):
            options[name[2:]] = rest.pop(0)
        else:
            sys.exit(f"report.py: unknown argument {name}")
    return options


def read_expected(path):
    """{case: reason}; an entry without a reason above it is an error."""
    expected, reason = {}, None
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.startswith("# reason:"):
            reason = line[len("# reason:"):].strip()
        elif not line.strip() or line.startswith("#"):
            continue
        else:
            if not reason:
                sys.exit(f"{path}:{number}: an expected failure needs a '# reason:' line above it")
            expected[line.strip()] = reason
    return expected


def prune(path, cases):
    """Rewrites the list without `cases`, each with its reason line."""
    lines = open(path, encoding="utf-8").read().split("\n")
    kept = []
    for line in lines:
        if line.strip() in cases:
            if kept and kept[-1].startswith("# reason:"):
                kept.pop()
            continue
        kept.append(line)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(kept))
    open(path, "w", encoding="utf-8").write(text)


def case_names(outcomes):
    """{`SUITE :: FULL TITLE`: outcome}, in the suites' order; a title that
    two cases share gets ` (2)`, ` (3)`… on its later cases."""
    cases, seen = {}, {}
    for outcome in sorted(outcomes, key=lambda o: o.get("index", 0)):
        name = f"{outcome['file'].replace('.spec.js', '')} :: {outcome['title']}"
        seen[name] = seen.get(name, 0) + 1
        cases[name if seen[name] == 1 else f"{name} ({seen[name]})"] = outcome
    return cases


def main():
    options = arguments(sys.argv)
    outcomes = []
    for shard in sorted(glob.glob(os.path.join(options["results"], "shard-*.json"))):
        outcomes += json.load(open(shard, encoding="utf-8"))
    if not outcomes:
        sys.exit("report.py: no results (did every worker run?)")
    suites = {}
    for outcome in outcomes:
        entry = suites.setdefault(outcome["file"].replace(".spec.js", ""), [0, 0])
        entry[0] += outcome["passed"]
        entry[1] += 1
    width = max(len(name) for name in suites)
    for name, (passed, total) in sorted(suites.items()):
        print(f"  {name:<{width}}  {passed:>3} of {total:<3}")
    passed = sum(p for p, _ in suites.values())
    total = sum(t for _, t in suites.values())
    print(f"{options['mode']}: {passed} of {total} cases passed ({100 * passed / total:.1f} %) in {len(suites)} suites")

    problems = []
    if options["expected"]:
        expected = read_expected(options["expected"])
        cases = case_names(outcomes)
        unexpected = sorted(case for case, o in cases.items() if not o["passed"] and case not in expected)
        fixed = sorted(case for case in expected if case in cases and cases[case]["passed"])
        missing = sorted(case for case in expected if case not in cases)
        for case in unexpected:
            problems.append(f"fails, and {options['expected']} does not list it: {case}\n    {cases[case].get('error', '')}")
        if fixed and options["prune"]:
            prune(options["expected"], set(fixed))
            print(f"{options['expected']}: {len(fixed)} cases that pass now taken off")
            fixed = []
        for case in fixed:
            problems.append(f"passes now: take it off {options['expected']}: {case} (or run with --prune)")
        for case in missing:
            problems.append(f"listed in {options['expected']}, but no such case ran: {case}")
        print(f"{len(expected)} expected failures listed; {len(unexpected)} unexpected, {len(fixed)} now passing")

    if options["readme"]:
        text = open(options["readme"], encoding="utf-8").read()
        mode = re.escape(options["mode"])
        pattern = re.compile(rf"(<!-- suites:{mode} -->)(.*?)(<!-- /suites:{mode} -->)", re.S)
        figures = f"{passed} of {total}"
        match = pattern.search(text)
        if not match:
            problems.append(f"{options['readme']} has no <!-- suites:{options['mode']} --> figures")
        elif match.group(2) != figures:
            if options["write"]:
                open(options["readme"], "w", encoding="utf-8").write(pattern.sub(lambda m: m.group(1) + figures + m.group(3), text))
                print(f"{options['readme']}: {options['mode']} figures written: {figures}")
            else:
                problems.append(f"{options['readme']} says {match.group(2)} for {options['mode']}; this run: {figures} (run with --write)")

    if problems:
        print("\n".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
