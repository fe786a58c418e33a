#!/usr/bin/env python3
"""Makes the OTP test fixtures with pyotp (and python-qrcode for QR matrices).

The Swift tests read only the JSON this writes, so they pass without Python.
Run from this folder:  python3 make_fixtures.py   (pip install pyotp qrcode)
"""
import base64
import hashlib
import json
import random
import urllib.parse

import pyotp
import qrcode
from qrcode.util import MODE_8BIT_BYTE, QRData

rng = random.Random(20261121)
DIGESTS = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}


def random_secret():
    return base64.b32encode(bytes(rng.getrandbits(8) for _ in range(rng.choice([16, 20, 20, 32, 64, 17, 33])))).decode().rstrip("=")


codes = []
for index in range(600):
    algorithm = rng.choice(list(DIGESTS))
    digits = rng.choice([6, 7, 8])
    period = rng.choice([30, 30, 30, 60, 1, 15, 90])
    # Spread times over 1970..9999, with many past 2038 and 2^32 (2106).
    time = rng.choice([rng.randrange(0, 2**31), rng.randrange(2**31, 2**32), rng.randrange(2**32, 253402300800)])
    secret = random_secret()
    totp = pyotp.TOTP(secret, digits=digits, digest=DIGESTS[algorithm], interval=period)
    codes.append({"secret": secret, "algorithm": algorithm, "digits": digits, "period": period, "time": time,
                  "code": totp.at(time)})

ODD = ["ACME Co", "Ada Lovelace", "a@b.example", "R&D", "50% off", "x/y", "Ünïcödé", "東京", "tab\there", "a+b",
       "semi;colon", "q?uery", "hash#tag", "eq=ual", "plain", "smile 😀", "apos'trophe", "quote\"d", "co:lon", "R:D"]
uris = []
for index in range(240):
    issuer = rng.choice(ODD + [None])
    account = rng.choice(ODD) + rng.choice(["", "@example.com", " 2"])
    algorithm = rng.choice(list(DIGESTS))
    digits = rng.choice([6, 8])
    period = rng.choice([30, 60])
    secret = random_secret()
    totp = pyotp.TOTP(secret, digits=digits, digest=DIGESTS[algorithm], interval=period, issuer=issuer, name=account)
    uri = totp.provisioning_uri()
    parsed = pyotp.parse_uri(uri)
    uris.append({"uri": uri, "issuer": parsed.issuer, "account": parsed.name, "secret": secret,
                 "algorithm": algorithm, "digits": parsed.digits, "period": parsed.interval})

# QR matrices from python-qrcode for fixed error correction and mask, so the
# Swift encoder can be compared module by module. (segno is not used: it
# writes an extra zero byte after the terminator, which decoders accept but
# the standard's padding does not produce.)
LEVELS = {"L": qrcode.constants.ERROR_CORRECT_L, "M": qrcode.constants.ERROR_CORRECT_M,
          "Q": qrcode.constants.ERROR_CORRECT_Q, "H": qrcode.constants.ERROR_CORRECT_H}
qr = []
for index, (text, error, mask) in enumerate([
    ("otpauth://totp/ACME%20Co:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=ACME%20Co", "M", 2),
    ("hello", "L", 0), ("HELLO WORLD 123", "Q", 5), ("a" * 100, "H", 7), ("Ünïcödé 東京", "M", 3),
    ("otpauth://totp/x?secret=" + "A" * 200, "L", 4), ("b" * 300, "Q", 1), ("c" * 1000, "M", 6),
    ("d" * 2000, "L", 3),
]):
    code = qrcode.QRCode(error_correction=LEVELS[error], mask_pattern=mask, border=0)
    code.add_data(QRData(text.encode("utf-8"), mode=MODE_8BIT_BYTE))
    code.make(fit=True)
    matrix = ["".join("1" if cell else "0" for cell in row) for row in code.get_matrix()]
    qr.append({"text": text, "error": error, "mask": mask, "version": code.version, "matrix": matrix})

with open("pyotp-codes.json", "w") as f:
    json.dump(codes, f, indent=0, ensure_ascii=False)
with open("pyotp-uris.json", "w") as f:
    json.dump(uris, f, indent=0, ensure_ascii=False)
with open("qrcode-matrices.json", "w") as f:
    json.dump(qr, f, indent=0, ensure_ascii=False)
print(len(codes), "codes,", len(uris), "URIs,", len(qr), "QR matrices")
