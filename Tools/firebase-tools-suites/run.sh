#!/usr/bin/env bash
# Runs firebase-tools' Auth emulator suites over HTTP against `mfa emulator`.
#
# Usage: Tools/firebase-tools-suites/run.sh FIREBASE_TOOLS_CHECKOUT [MFA_BINARY [REPORT_ARGUMENTS...]]
#
# Needs node (18+), python3 with tree-sitter and tree-sitter-typescript
# (pip install tree-sitter tree-sitter-typescript). The suites' TypeScript is
# stripped of its types into a scratch folder (nothing of firebase-tools is
# kept here); each test gets a fresh emulator. GREP=pattern runs some tests
# only; VERBOSE=1 prints passes too; SUITES="a b" runs those suites only;
# WORKERS=n runs n node workers at once; arguments after the binary go to
# report.py (--expected FILE [--prune], --readme FILE [--write], --mode NAME);
# EMULATOR_FLAGS="--google-compatible" starts every emulator with those flags
# (unsigned ID tokens, as Google's, among the rest).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
checkout=$1
mfa=$(cd "$(dirname "${2:-$(cd "$here/../.." && swift build --show-bin-path)/mfa}")" && pwd)/$(basename "${2:-mfa}")
REPORT_ARGS=("${@:3}")
# report.py's --expected and --readme paths are the caller's, read from there.
caller=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
auth="$checkout/src/emulator/auth"
# The blocking functions' host becomes the runner's local server (runtime.js).
python3 "$here/strip.py" "$auth/testing/helpers.ts" | sed 's|"http://my-blocking-function.test"|process.env.BLOCKING_FUNCTION_HOST|' > "$work/helpers.js"
# Every suite but cloudFunctions.spec.ts, a unit test of firebase-tools' own
# class (no HTTP), which no other emulator can run.
all_suites=$(cd "$auth" && ls *.spec.ts | sed 's/\.spec\.ts$//' | grep -v '^cloudFunctions$' | tr '\n' ' ')
suites="${SUITES:-$all_suites}"
[ -z "${SUITES:-}" ] && echo "cloudFunctions.spec.ts skipped: a unit test of firebase-tools' own class, not an HTTP case"
for suite in $suites; do python3 "$here/strip.py" "$auth/$suite.spec.ts" > "$work/$suite.spec.js"; done
cp "$here/runtime.js" "$here/shim-module.js" "$here/run.js" "$work/"
# WORKERS node processes, each with every WORKERS-th test and its own emulators.
workers=${WORKERS:-1}
results=${RESULTS_DIR:-$work/results}
mkdir -p "$results"
rm -f "$results"/shard-*.json
cd "$work"
pids=()
for ((k = 0; k < workers; k++)); do
    SHARD="$k/$workers" RESULTS="$results/shard-$k.json" node run.js "$mfa" $(for suite in $suites; do printf '%s.spec.js ' "$suite"; done) \
        > "$work/worker-$k.log" 2>&1 &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
grep -h -A2 '^FAIL' "$work"/worker-*.log || true
[ "$status" = 0 ] || { echo "a worker failed:"; tail -5 "$work"/worker-*.log; exit 1; }
cd "$caller"
python3 "$here/report.py" "$results" "${REPORT_ARGS[@]}"
