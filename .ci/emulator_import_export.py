#!/usr/bin/env python3
"""The emulator's data across restarts, in firebase-tools' export format,
driven by firebase-admin (Python, from PyPI) in emulator mode.

Usage: emulator_import_export.py MFA_BINARY FIRESTORE_TOOLS_FIXTURE_DIR

1. `mfa emulator --import FIXTURE --export-on-exit DIR`: the fixture is a
   folder as Google's emulator writes it; firebase-admin reads its users.
2. firebase-admin creates users and imports others with real password
   hashes (SCRYPT as firebase/scrypt publishes its example, HMAC_SHA256 and
   PBKDF2_SHA256 computed here with hashlib), a TOTP factor is enrolled
   over REST (pyotp); imported passwords sign in.
3. SIGTERM writes the export; a second emulator started with `--import DIR`
   has the same users (firebase-admin's listing compared field by field),
   the imported passwords still sign in, and the TOTP factor still works.
4. A corrupt export stops the emulator with exit 2, naming file and field.
"""
import base64
import hashlib
import hmac
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

import pyotp

MFA, FIXTURE = sys.argv[1], sys.argv[2]
PROJECT = "demo-mfa"
KEY = "?key=any"


def start(*arguments):
    process = subprocess.Popen([MFA, "emulator", "--port", "0", "--project", PROJECT, *arguments],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline().strip()
    assert line.startswith("listening on http://"), (line, process.stderr.read())
    return process, line[len("listening on http://"):]


def call(host, path, body, owner=False):
    headers = {"Content-Type": "application/json"}
    if owner:
        headers["Authorization"] = "Bearer owner"
    request = urllib.request.Request(f"http://{host}{path}", data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{path}: {error.code} {error.read().decode()}")


def sign_in(host, email, password):
    return call(host, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword" + KEY, {"email": email, "password": password})


def factors(host, uid):
    """A user's second factors (firebase-admin's Python UserRecord has none), over REST."""
    found = call(host, f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:lookup", {"localId": [uid]}, owner=True)
    return sorted((f.get("displayName", ""), "totp" if "totpInfo" in f else "phone") for f in found["users"][0].get("mfaInfo", []))


def admin_users(auth, host):
    """Every user as firebase-admin shows it (factors over REST), without what a sign-in changes."""
    users = {}
    for user in auth.list_users().iterate_all():
        record = {
            "email": user.email, "email_verified": user.email_verified, "display_name": user.display_name,
            "disabled": user.disabled, "phone_number": user.phone_number, "custom_claims": user.custom_claims,
            "providers": sorted(p.provider_id for p in user.provider_data),
            "factors": factors(host, user.uid),
            "created": user.user_metadata.creation_timestamp,
        }
        users[user.uid] = record
    return users


def main():
    export = os.path.join(tempfile.mkdtemp(), "export")
    first, host = start("--import", FIXTURE, "--export-on-exit", export)
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = host
    import firebase_admin
    from firebase_admin import auth
    firebase_admin.initialize_app(options={"projectId": PROJECT})

    # 1. The fixture, read through firebase-admin.
    grace = auth.get_user("Hb4mCWJOM9yBq1Xp7iRfbwI9tUn2")
    assert grace.email == "grace@example.com" and grace.display_name == "Grace Hopper" and grace.custom_claims == {"admiral": True}
    assert factors(host, grace.uid) == [("Work phone", "phone")]
    assert auth.get_user("phoneUser00000000000000000001").disabled
    print("ok: firebase-admin reads a firebase-tools export loaded with --import")

    # 2. Users made and imported through firebase-admin, hashes checked by the emulator.
    auth.create_user(uid="made", email="made@example.com", password="secret-made", display_name="Made")
    auth.set_custom_user_claims("made", {"role": "desk"})
    salt = b"NaCl-import"
    hmac_key = b"import-hmac-key"
    records = [
        auth.ImportUserRecord(uid="hmac-user", email="hmac@example.com",
                              password_hash=hmac.new(hmac_key, salt + b"hmac-secret", "sha256").digest(), password_salt=salt),
    ]
    result = auth.import_users(records, hash_alg=auth.UserImportHash.hmac_sha256(key=hmac_key))
    assert result.success_count == 1 and result.failure_count == 0, [e.reason for e in result.errors]
    pbkdf2 = [auth.ImportUserRecord(uid="pbkdf2-user", email="pbkdf2@example.com",
                                    password_hash=hashlib.pbkdf2_hmac("sha256", b"pbkdf2-secret", salt, 10000, 32), password_salt=salt)]
    assert auth.import_users(pbkdf2, hash_alg=auth.UserImportHash.pbkdf2_sha256(rounds=10000)).success_count == 1
    scrypt = [auth.ImportUserRecord(uid="scrypt-user", email="scrypt@example.com",
                                    password_hash=base64.b64decode("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="),
                                    password_salt=base64.b64decode("42xEC+ixf3L2lw=="))]
    scrypt_hash = auth.UserImportHash.scrypt(
        key=base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
        salt_separator=base64.b64decode("Bw=="), rounds=8, memory_cost=14)
    assert auth.import_users(scrypt, hash_alg=scrypt_hash).success_count == 1
    refused = auth.import_users([auth.ImportUserRecord(uid="dup", email="made@example.com")])
    assert refused.failure_count == 1 and "email exists" in refused.errors[0].reason, refused.errors[0].reason
    for email, password in [("hmac@example.com", "hmac-secret"), ("pbkdf2@example.com", "pbkdf2-secret"), ("scrypt@example.com", "user1password")]:
        assert sign_in(host, email, password)["idToken"]
    print("ok: firebase-admin imports users with HMAC_SHA256, PBKDF2_SHA256 and SCRYPT hashes; each password signs in")

    # A TOTP factor, enrolled over REST.
    patch = urllib.request.Request(f"http://{host}/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/config?updateMask=mfa",
                                   data=json.dumps({"mfa": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}}).encode(),
                                   headers={"Content-Type": "application/json", "Authorization": "Bearer owner"}, method="PATCH")
    urllib.request.urlopen(patch).read()
    auth.update_user("made", email_verified=True)
    token = sign_in(host, "made@example.com", "secret-made")["idToken"]
    started = call(host, "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start" + KEY, {"idToken": token, "totpEnrollmentInfo": {}})
    secret = started["totpSessionInfo"]["sharedSecretKey"]
    call(host, "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:finalize" + KEY,
         {"idToken": token, "displayName": "Phone app",
          "totpVerificationInfo": {"sessionInfo": started["totpSessionInfo"]["sessionInfo"], "verificationCode": pyotp.TOTP(secret).now()}})
    before = admin_users(auth, host)

    # 3. SIGTERM exports; a second emulator imports.
    first.terminate()
    assert first.wait(timeout=30) == 0
    accounts = json.load(open(os.path.join(export, "auth_export", "accounts.json")))
    assert any(u["localId"] == "made" and u["passwordHash"].startswith("fakeHash:salt=") for u in accounts["users"])
    assert os.stat(os.path.join(export, "auth_export", "accounts.json")).st_mode & 0o077 == 0, "the export is readable by others"
    second, host = start("--import", export)
    try:
        os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = host
        firebase_admin.delete_app(firebase_admin.get_app())
        firebase_admin.initialize_app(options={"projectId": PROJECT})
        after = admin_users(auth, host)
        assert after == before, {uid: (before.get(uid), after.get(uid)) for uid in set(before) | set(after) if before.get(uid) != after.get(uid)}
        for email, password in [("hmac@example.com", "hmac-secret"), ("scrypt@example.com", "user1password")]:
            assert sign_in(host, email, password)["idToken"]
        pending = sign_in(host, "made@example.com", "secret-made")
        enrollment = pending["mfaInfo"][0]["mfaEnrollmentId"]
        finished = call(host, "/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize" + KEY,
                        {"mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": enrollment,
                         "totpVerificationInfo": {"verificationCode": pyotp.TOTP(secret).now()}})
        assert finished["idToken"]
        print(f"ok: export on SIGTERM and --import: {len(after)} users equal through firebase-admin; imported hashes and the TOTP factor still sign in")
    finally:
        second.terminate()
        second.wait(timeout=30)

    # 4. A corrupt export stops the emulator before it serves.
    with open(os.path.join(export, "auth_export", "accounts.json"), "w") as corrupt:
        corrupt.write('{"users":[{"localId":"x","createdAt":"yesterday"}]}')
    refused = subprocess.run([MFA, "emulator", "--port", "0", "--import", export], capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2 and "auth_export/accounts.json: users[0].createdAt" in refused.stderr and not refused.stdout, refused
    print("ok: a corrupt export stops the emulator with exit 2, naming the file and field")


if __name__ == "__main__":
    main()
