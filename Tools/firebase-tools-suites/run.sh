#!/usr/bin/env bash
# Runs firebase-tools' Auth emulator suites over HTTP against `mfa emulator`.
#
# Usage: Tools/firebase-tools-suites/run.sh FIREBASE_TOOLS_CHECKOUT [MFA_BINARY]
#
# Needs node (18+), python3 with tree-sitter and tree-sitter-typescript
# (pip install tree-sitter tree-sitter-typescript). The suites' TypeScript is
# stripped of its types into a scratch folder (nothing of firebase-tools is
# kept here); each test gets a fresh emulator. GREP=pattern runs some tests
# only; VERBOSE=1 prints passes too; SUITES="a b" runs those suites only;
# SIGNED_AS_UNSIGNED=1 reads our RS256 ID tokens as Google's unsigned ones
# (a documented difference), so that the rest of such a case runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
checkout=$1
mfa=$(cd "$(dirname "${2:-$(cd "$here/../.." && swift build --show-bin-path)/mfa}")" && pwd)/$(basename "${2:-mfa}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
auth="$checkout/src/emulator/auth"
# The blocking functions' host becomes the runner's local server (runtime.js).
python3 "$here/strip.py" "$auth/testing/helpers.ts" | sed 's|"http://my-blocking-function.test"|process.env.BLOCKING_FUNCTION_HOST|' > "$work/helpers.js"
suites="${SUITES:-mfa batch config tenant password signUp setAccountInfo deleteAccount customToken misc rest oob}"
for suite in $suites; do python3 "$here/strip.py" "$auth/$suite.spec.ts" > "$work/$suite.spec.js"; done
cp "$here/runtime.js" "$here/shim-module.js" "$here/run.js" "$work/"
cd "$work"
node run.js "$mfa" $(for suite in $suites; do printf '%s.spec.js ' "$suite"; done)
