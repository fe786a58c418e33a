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
# The digester builds the baseline in a checkout of its own with the
# package's default traits (it has no traits option), and with none on, the
# gated modules do not build. So it is given the baseline commit with one
# line changed, every trait on by default: the same API, buildable. That
# commit lives only in this clone (a temporary clone makes it, this one
# fetches it); the baseline's API files are kept per baseline commit.
if ! git -C . cat-file -e "$baseline:Package.swift" 2>/dev/null; then
    echo "the baseline $baseline has no Package.swift"; exit 1
fi
work=$(mktemp -d)
git clone -q --no-checkout . "$work/baseline"
git -C "$work/baseline" checkout -q "$baseline"
python3 - "$work/baseline/Package.swift" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
names = re.findall(r'\.trait\(\s*name: (Trait\.\w+|"[^"]+")', text)
patched, count = re.subn(r'\.default\(enabledTraits: \[[^\]]*\]\)', ".default(enabledTraits: [" + ", ".join(names) + "])", text)
if count != 1 or not names:
    sys.exit(f"{path}: no '.default(enabledTraits: [...])' with traits to turn on; the gate cannot build this baseline")
open(path, "w").write(patched)
PY
GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
    git -C "$work/baseline" -c user.name=api-gate -c user.email=api-gate@localhost commit -qam "the baseline with every trait on by default (the API gate's build)"
git fetch -q "$work/baseline" HEAD
buildable=$(git rev-parse FETCH_HEAD)
rm -rf "$work"
# The baseline's API files are committed (.ci/api-baseline/<commit>.tar.xz,
# with the toolchain that made them): a release's API never changes, so CI
# reads them instead of building the baseline (about five minutes). A
# different toolchain, or no archive, builds them as before.
baseline_dir="${1:-.build/api-baseline}/$baseline"
archive=.ci/api-baseline/$baseline.tar.xz
toolchain=$(swift --version 2>/dev/null | head -1)
if [ -f "$archive" ] && [ ! -d "$baseline_dir/$buildable" ]; then
    stamp=$(tar -xJOf "$archive" ./toolchain.txt 2>/dev/null || true)
    if [ "$stamp" = "$toolchain" ]; then
        mkdir -p "$baseline_dir/$buildable"
        tar -xJf "$archive" -C "$baseline_dir/$buildable" --exclude ./toolchain.txt
        echo "the baseline's API files: $archive ($(ls "$baseline_dir/$buildable" | wc -l) modules, made by $stamp)"
    else
        echo "$archive was made by '$stamp', this is '$toolchain': building the baseline"
    fi
fi
echo "comparing ${products[*]} with $baseline (built as $buildable, every trait on)"
swift package --enable-all-traits diagnose-api-breaking-changes "$buildable" "${arguments[@]}" \
    --breakage-allowlist-path "$allowlist" --baseline-dir "$baseline_dir"
if [ ! -f "$archive" ] || [ "$(tar -xJOf "$archive" ./toolchain.txt 2>/dev/null)" != "$toolchain" ]; then
    echo "to keep this baseline's API files for CI: (cd $baseline_dir/$buildable && swift --version 2>/dev/null | head -1 > toolchain.txt && tar -cJf \"\$OLDPWD/$archive\" --sort=name ./*.json ./toolchain.txt && rm toolchain.txt)"
fi
