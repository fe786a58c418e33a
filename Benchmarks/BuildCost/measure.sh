#!/usr/bin/env bash
# What every app pays to build the SDK: a clean debug build of a one-file app
# that uses MultiFactorAuth, at two revisions of this package, and the
# generator tool that the build-tool plugin runs beside swift-openapi-generator's
# own, all in one run on one machine (so the figures compare).
#
#   bash Benchmarks/BuildCost/measure.sh BEFORE_REV [AFTER_REV]
#
# Prints one line per build: wall seconds and the modules compiled.
set -euo pipefail
before=${1:?usage: measure.sh BEFORE_REV [AFTER_REV]}
after=${2:-HEAD}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=$(mktemp -d /tmp/build-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT

export_rev() { mkdir -p "$work/$2" && git -C "$root" archive "$1" | tar -x -C "$work/$2"; }

app() { # NAME PACKAGE_DIR
    mkdir -p "$work/app-$1/Sources/App"
    cat > "$work/app-$1/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "App", platforms: [.macOS(.v14)],
    dependencies: [.package(path: "$2")],
    targets: [.executableTarget(name: "App", dependencies: [.product(name: "MultiFactorAuth", package: "$(basename "$2")")])]
)
SWIFT
    echo 'import MultiFactorAuth
print(AuthErrorCode.secondFactorRequired.rawValue)' > "$work/app-$1/Sources/App/main.swift"
}

timed_build() { # LABEL ARGS...
    local label=$1; shift
    local started=$(date +%s.%N)
    swift build "$@" > "$work/log" 2>&1 || { cat "$work/log"; exit 1; }
    local seconds=$(echo "$(date +%s.%N) - $started" | bc)
    local modules=$(grep -c "Compiling\|Emitting module" "$work/log" || true)
    printf '%-58s %7.1f s  (%s compile steps)\n' "$label" "$seconds" "$modules"
}

export_rev "$before" before
export_rev "$after" after
app before "$work/before"
app after "$work/after"

mkdir -p "$work/openapi"
cat > "$work/openapi/Package.swift" <<'SWIFT'
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "OpenAPITool",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3")],
    targets: []
)
SWIFT

# Resolve first, so that the timings are builds only.
for package in app-before app-after openapi; do swift package --package-path "$work/$package" resolve > /dev/null; done

echo "clean debug builds on $(nproc) cores, $(swift --version 2>/dev/null | head -1)"
timed_build "app using MultiFactorAuth at $(git -C "$root" rev-parse --short "$before") (before)" --package-path "$work/app-before"
timed_build "app using MultiFactorAuth at $(git -C "$root" rev-parse --short "$after") (after)" --package-path "$work/app-after"
timed_build "plugin tool: spec-codegen-plugin-tool (after)" --package-path "$work/after" --scratch-path "$work/tool-ours" --product spec-codegen-plugin-tool
timed_build "plugin tool: swift-openapi-generator 1.14.3" --package-path "$work/openapi" --product swift-openapi-generator
