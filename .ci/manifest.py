"""The package's target graph, read from `swift package dump-package`'s
JSON: the one walk of it that `.ci/module_graph.py` (what each product
builds) and `.ci/inputs.py` (what the sanitized suites load) share."""


def targets_by_name(dump):
    """The manifest's targets, by name."""
    return {target["name"]: target for target in dump["targets"]}


def dependencies(targets, target):
    """The package's own modules and the external products `target` names
    (`package/product`, or a bare name a `byName` dependency gives)."""
    own, external = [], []
    for dependency in target.get("dependencies", []):
        for kind, value in dependency.items():
            if kind in ("byName", "target") and value[0] in targets:
                own.append(value[0])
            elif kind == "product":
                external.append(f"{value[1]}/{value[0]}")
            elif kind == "byName":
                external.append(value[0])
    return own, external


def reached(targets, roots):
    """The own modules `roots` reach, themselves included, and the external
    packages those name. A root that is no target is skipped."""
    modules, packages, stack = set(), set(), list(roots)
    while stack:
        name = stack.pop()
        if name in modules or name not in targets:
            continue
        modules.add(name)
        own, external = dependencies(targets, targets[name])
        stack.extend(own)
        packages.update(item.split("/")[0] for item in external)
    return modules, packages
