#!/usr/bin/env bash
# The API-stability gate: the public API of the library products against the
# release named in .api-baseline. A break fails CI unless
# .api-breakage-allowlist lists its exact digester message under a
# `# reason:` line. Usage: .ci/api_gate.sh [BASELINE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

baseline=$(grep -v '^#' .api-baseline | tr -d '[:space:]')
if ! git cat-file -e "$baseline^{commit}" 2>/dev/null; then
    echo "the baseline $baseline of .api-baseline is not in this clone (fetch it, or the full history)"; exit 1
fi

# Every allowed break needs a reason; the digester gets the messages alone.
allowlist=$(mktemp)
python3 - .api-breakage-allowlist "$allowlist" <<'PY'
import sys
source, target = sys.argv[1], sys.argv[2]
messages, reason = [], None
for number, line in enumerate(open(source), 1):
    line = line.rstrip("\n")
    if line.startswith("# reason:"):
        reason = line[len("# reason:"):].strip()
    elif line.startswith("#") or not line.strip():
        continue
    else:
        if not reason:
            raise SystemExit(f"{source}:{number}: an allowed break needs a '# reason:' line above it")
        messages.append(line.strip())
        reason = None
open(target, "w").write("\n".join(messages) + ("\n" if messages else ""))
print(f"{len(messages)} allowed break(s) in {source}")
PY

# Every library product (the digester fails on a product the baseline lacks: a new one joins after the next release).
products=(IdentityToolkit IdentityToolkitAsyncHTTPClient IdentityOTP IdentityOTPFormats IdentityToolkitEmulator MultiFactorAuth IdentityAdmin IdentityAdminHummingbird IdentityAdminVapor IdentityServerState IdentityStoresPostgres)
arguments=()
for product in "${products[@]}"; do arguments+=(--products "$product"); done
echo "comparing ${products[*]} with $baseline"
swift package --enable-all-traits diagnose-api-breaking-changes "$baseline" "${arguments[@]}" \
    --breakage-allowlist-path "$allowlist" --baseline-dir "${1:-.build/api-baseline}"
