#!/usr/bin/env python3
"""Live cross-checks of `mfa totp` against pyotp, oathtool and zbarimg.

Usage: otp_crosscheck.py PATH/TO/mfa
Fresh random cases on every run; any mismatch fails the run.
"""
import base64
import concurrent.futures
import hashlib
import os
import random
import subprocess
import sys
import tempfile

import pyotp

MFA = sys.argv[1]
rng = random.SystemRandom()
DIGESTS = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}
failures = []
# Each case starts a few processes (a debug mfa takes ~0.1 s to load), so
# the cases run side by side: they share nothing but the failure list.
WORKERS = max(4, 2 * (os.cpu_count() or 1))


def run_cases(check_case, cases):
    """Runs `check_case` on every case, side by side; each returns its failures."""
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        for found in pool.map(check_case, cases):
            failures.extend(found)
# QR only: with every symbology on, zbar's 1D scanners sometimes also "find" a
# Codabar code inside a QR image (seen: "A.5A" appended to the QR's bytes).
ZBAR = ("zbarimg", "-q", "--raw", "-Sdisable", "-Sqrcode.enable", "-Sbinary")


def run(*args, check=True, secret=None):
    """Runs a command; `secret` goes to its standard input, never on its command line."""
    result = subprocess.run(args, capture_output=True, input=secret.encode() if secret is not None else None)
    if check and result.returncode != 0:
        raise RuntimeError(f"{args[:3]}... exited {result.returncode}: {result.stderr.decode(errors='replace')}")
    return result


# 1. Codes: mfa vs pyotp vs oathtool.
CODE_CASES = 250


def check_code(index):
    found = []
    key = bytes(rng.getrandbits(8) for _ in range(rng.choice([16, 20, 32, 64])))
    secret = base64.b32encode(key).decode().rstrip("=")
    algorithm = rng.choice(list(DIGESTS))
    digits = rng.choice([6, 7, 8])
    period = rng.choice([30, 30, 60, 15, 1])
    time = rng.choice([rng.randrange(0, 2**31), rng.randrange(2**31, 2**32), rng.randrange(2**32, 253402300000)])
    ours = run(MFA, "totp", "code", "--algorithm", algorithm, "--digits", str(digits),
               "--period", str(period), "--time", str(time), secret=secret).stdout.decode().strip()
    theirs = pyotp.TOTP(secret, digits=digits, digest=DIGESTS[algorithm], interval=period).at(time)
    oath = run("oathtool", f"--totp={algorithm}", "-d", str(digits), "-s", f"{period}s",
               "-N", f"@{time}", "-", secret=key.hex()).stdout.decode().strip()
    if not (ours == theirs == oath):
        found.append(f"code: {algorithm} d={digits} p={period} t={time}: mfa={ours} pyotp={theirs} oathtool={oath}")
    if index % 25 == 0:
        verdict = run(MFA, "totp", "verify", "--algorithm", algorithm, "--digits", str(digits),
                      "--period", str(period), "--time", str(time + period), "--code", theirs, "--window", "1", check=False, secret=secret)
        if verdict.returncode != 0:
            found.append(f"verify refused pyotp's code one step back (t={time})")
        wrong = str((int(theirs) + 1) % 10**digits).zfill(digits)
        verdict = run(MFA, "totp", "verify", "--algorithm", algorithm, "--digits", str(digits),
                      "--period", str(period), "--time", str(time), "--code", wrong, "--window", "0", check=False, secret=secret)
        if verdict.returncode != 1:
            found.append(f"verify accepted a wrong code (t={time})")
    return found


run_cases(check_code, range(CODE_CASES))
print(f"{CODE_CASES} random codes: mfa, pyotp and oathtool agree" if not failures else "code mismatches")

# 2. URIs built by mfa, parsed by pyotp.
NAMES = ["ACME Co", "a@b.example", "R&D", "50% off", "x/y", "Ünïcödé", "東京", "a+b", "q?u#e=r;y", "😀", "plain", "co:lon"]
URI_CASES = 120


def check_uri(index):
    key = bytes(rng.getrandbits(8) for _ in range(20))
    secret = base64.b32encode(key).decode().rstrip("=")
    issuer, account = rng.choice(NAMES), rng.choice(NAMES) + str(index)
    algorithm, digits, period = rng.choice(list(DIGESTS)), rng.choice([6, 8]), rng.choice([30, 60])
    uri = run(MFA, "totp", "uri", "--account", account, "--issuer", issuer, "--algorithm", algorithm,
              "--digits", str(digits), "--period", str(period), secret=secret).stdout.decode().strip()
    parsed = pyotp.parse_uri(uri)
    if (parsed.issuer, parsed.name, parsed.secret, parsed.digits, parsed.interval) != (issuer, account, secret, digits, period) \
            or parsed.digest().name.upper().replace("-", "") != algorithm:
        return [f"uri: pyotp read {uri} differently"]
    return []


run_cases(check_uri, range(URI_CASES))
print(f"{URI_CASES} random URIs built by mfa: pyotp parses them to the same fields")

# 3. QR images decoded by zbarimg, byte for byte.
QR_CASES = 120


def check_qr(folder, index):
    found = []
    key = bytes(rng.getrandbits(8) for _ in range(rng.choice([16, 20, 64])))
    secret = base64.b32encode(key).decode().rstrip("=")
    label = rng.choice(NAMES) + ":" + rng.choice(NAMES) * rng.choice([1, 1, 4, 20])
    uri = f"otpauth://totp/{label}?secret={secret}&issuer={rng.choice(NAMES)}" + "&x=" + "y" * rng.choice([0, 0, 300, 800])
    ecc = ["L", "M", "Q", "H"][index % 4]
    png, svg, svg_png = (os.path.join(folder, f"{index}.{suffix}") for suffix in ("png", "svg", "svg.png"))
    run(MFA, "totp", "qr", "--uri", uri, "--format", "png", "--ecc", ecc, "--scale", "4", "--output", png)
    run(MFA, "totp", "qr", "--uri", uri, "--format", "svg", "--ecc", ecc, "--output", svg)
    run("rsvg-convert", svg, "-o", svg_png)
    for image in (png, svg_png):
        decoded = run(*ZBAR, image, check=False).stdout
        if decoded.rstrip(b"\n") != uri.encode("utf-8"):
            expected = uri.encode("utf-8")
            got = decoded.rstrip(b"\n")
            first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
            found.append(f"qr: {os.path.basename(image)} (ECC {ecc}, {len(expected)} bytes) decoded to {len(got)} bytes, "
                         f"first difference at byte {first}: {got[first:first + 30]!r} for {expected[first:first + 30]!r}")
    return found


with tempfile.TemporaryDirectory() as folder:
    run_cases(lambda index: check_qr(folder, index), range(QR_CASES))
print(f"{QR_CASES} random URIs (ECC L/M/Q/H, up to ~1.2 KB, non-ASCII) as PNG and SVG: zbarimg reads them back exactly")


def text_to_pgm(text, path, scale=4):
    """Rasterises the terminal rendering (half blocks: top and bottom module) to a PGM image."""
    rows = []
    for line in text.rstrip("\n").split("\n"):
        top, bottom = [], []
        for char in line:
            top.append(char in "█▀")
            bottom.append(char in "█▄")
        rows += [top, bottom]
    width = max(len(row) for row in rows)
    pixels = bytearray()
    for row in rows:
        line = bytearray()
        for x in range(width):
            dark = x < len(row) and row[x]
            line += bytes([0 if dark else 255]) * scale
        pixels += bytes(line) * scale
    with open(path, "wb") as f:
        f.write(b"P5 %d %d 255\n" % (width * scale, len(rows) * scale) + bytes(pixels))


TEXT_CASES = 30


def check_text(folder, index):
    key = bytes(rng.getrandbits(8) for _ in range(20))
    uri = f"otpauth://totp/{rng.choice(NAMES)}:{rng.choice(NAMES)}?secret={base64.b32encode(key).decode().rstrip('=')}&issuer=x"
    text = run(MFA, "totp", "qr", "--uri", uri, "--format", "text", "--ecc", ["L", "M", "Q", "H"][index % 4]).stdout.decode()
    image = os.path.join(folder, f"{index}.pgm")
    text_to_pgm(text, image)
    decoded = run(*ZBAR, image, check=False).stdout
    if decoded.rstrip(b"\n") != uri.encode("utf-8"):
        return [f"terminal qr {index}: decoded to {decoded[:60]!r}"]
    return []


with tempfile.TemporaryDirectory() as folder:
    run_cases(lambda index: check_text(folder, index), range(TEXT_CASES))
print(f"{TEXT_CASES} terminal renderings (half blocks) rasterised: zbarimg reads them back exactly")

if failures:
    print(f"{len(failures)} failure(s):")
    for failure in failures[:30]:
        print("  " + failure)
    sys.exit(1)
print("otp cross-checks passed")
