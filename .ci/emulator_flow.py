#!/usr/bin/env python3
"""The whole TOTP story against `mfa emulator`, from a plain HTTP client.

Usage: emulator_flow.py PATH/TO/mfa
Starts the emulator on a free port, drives it with urllib (codes from pyotp),
then stops it with SIGTERM and expects exit status 0.
"""
import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pyotp

process = subprocess.Popen([sys.argv[1], "emulator", "--port", "0", "--project", "demo-mfa"],
                           stdout=subprocess.PIPE, text=True)
line = process.stdout.readline().strip()
assert line.startswith("listening on http://"), line
base = line.removeprefix("listening on ")
identity = base + "/identitytoolkit.googleapis.com"
print("emulator:", line)


def call(url, body=None, method="POST", headers=None, form=False):
    data = None
    headers = dict(headers or {})
    if body is not None:
        if form:
            data = urllib.parse.urlencode(body).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        else:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def ok(result, what):
    status, body = result
    assert status == 200, f"{what}: HTTP {status} {body}"
    print("ok:", what)
    return body


try:
    admin = {"Authorization": "Bearer owner"}
    ok(call(f"{identity}/v2/projects/demo-mfa/config?updateMask=mfa", {"mfa": {"providerConfigs": [
        {"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": "5"}}]}}, method="PATCH", headers=admin), "enable TOTP")
    user = ok(call(f"{identity}/v1/accounts:signUp?key=k", {"email": "py@example.com", "password": "secret-pw", "returnSecureToken": True}), "sign up")
    ok(call(f"{identity}/v1/accounts:sendOobCode?key=k", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]}), "send verification")
    codes = ok(call(f"{base}/emulator/v1/projects/demo-mfa/oobCodes", method="GET"), "read oobCodes")["oobCodes"]
    ok(call(f"{identity}/v1/accounts:update?key=k", {"oobCode": codes[-1]["oobCode"]}), "verify email")
    started = ok(call(f"{identity}/v2/accounts/mfaEnrollment:start?key=k", {"idToken": user["idToken"], "totpEnrollmentInfo": {}}), "start TOTP enrollment")
    info = started["totpSessionInfo"]
    totp = pyotp.TOTP(info["sharedSecretKey"], digits=info["verificationCodeLength"], interval=info["periodSec"])
    now = time.time()
    ok(call(f"{identity}/v2/accounts/mfaEnrollment:finalize?key=k", {"idToken": user["idToken"], "displayName": "pyotp",
        "totpVerificationInfo": {"sessionInfo": info["sessionInfo"], "verificationCode": totp.at(now)}}), "finalize enrollment")
    first = ok(call(f"{identity}/v1/accounts:signInWithPassword?key=k", {"email": "py@example.com", "password": "secret-pw", "returnSecureToken": True}), "password step")
    assert "idToken" not in first and first["mfaPendingCredential"] and first["mfaInfo"][0]["totpInfo"] == {}, first
    status, replay = call(f"{identity}/v2/accounts/mfaSignIn:finalize?key=k", {"mfaPendingCredential": first["mfaPendingCredential"],
        "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"], "totpVerificationInfo": {"verificationCode": totp.at(now)}})
    assert status == 400 and replay["error"]["message"].startswith("INVALID_CODE"), (status, replay)
    print("ok: replayed code refused")
    signed_in = ok(call(f"{identity}/v2/accounts/mfaSignIn:finalize?key=k", {"mfaPendingCredential": first["mfaPendingCredential"],
        "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"], "totpVerificationInfo": {"verificationCode": totp.at(now + 30)}}), "TOTP step")
    refreshed = ok(call(f"{base}/securetoken.googleapis.com/v1/token?key=k", {"grant_type": "refresh_token", "refresh_token": signed_in["refreshToken"]}, form=True), "refresh (form-encoded)")
    account = ok(call(f"{identity}/v1/accounts:lookup?key=k", {"idToken": refreshed["id_token"]}), "lookup")
    enrollment = account["users"][0]["mfaInfo"][0]["mfaEnrollmentId"]
    ok(call(f"{identity}/v2/accounts/mfaEnrollment:withdraw?key=k", {"idToken": refreshed["id_token"], "mfaEnrollmentId": enrollment}), "withdraw")
    status, expired = call(f"{base}/securetoken.googleapis.com/v1/token?key=k", {"grantType": "refresh_token", "refreshToken": signed_in["refreshToken"]})
    assert status == 400 and expired["error"]["message"].startswith("TOKEN_EXPIRED"), (status, expired)
    print("ok: the earlier session's refresh token is revoked")
finally:
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=20)
assert code == 0, f"mfa emulator exited {code} after SIGTERM"
print("ok: SIGTERM stops the emulator with exit status 0")
