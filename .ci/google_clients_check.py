"""Google's own Python clients against `mfa emulator`, on loopback.

- google-auth: a service-account key whose `token_uri` is the emulator's
  OAuth2 token endpoint gets access tokens (cloud-platform and firebase
  scopes), which the admin routes accept.
- google-api-python-client: the `identitytoolkit` v1 and v2 discovery
  clients (the documents bundled with the package) do config get/update,
  tenant create/list/get/patch/delete, user create/lookup/update/batchGet/
  delete, session cookies, and the TOTP flow (with pyotp).
- A browser's CORS preflight from a loopback origin, and the refusal of
  another origin and of a rebinding Host.

Usage: python3 google_clients_check.py PATH_TO_MFA
"""
import json
import subprocess
import sys
import urllib.error
import urllib.request

import google.auth.transport.requests
import pyotp
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.oauth2 import service_account
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

from emulator_process import start_emulator

MFA = sys.argv[1]
PROJECT = "demo-google-clients"
CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
FIREBASE = "https://www.googleapis.com/auth/firebase"
# The helpers that change state need the admin routes' credential.
OWNER = {"Authorization": "Bearer owner"}


def call(url, body=None, method=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request) as response:
        return response.status, dict(response.headers), response.read()


def expect_http_error(status, short_code, request):
    try:
        request.execute()
    except HttpError as error:
        assert error.resp.status == status, (error.resp.status, error.content)
        assert short_code in error.content.decode(), error.content
        return
    raise AssertionError(f"expected HTTP {status} {short_code}")


def main():
    emulator, address = start_emulator(MFA, PROJECT)
    base = f"http://{address}"
    checks = 0
    try:
        # A service account the emulator trusts, with a key file pointing at it.
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public_pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
        email = f"ci@{PROJECT}.iam.gserviceaccount.com"
        call(f"{base}/emulator/v1/serviceAccounts", {"clientEmail": email, "publicKeyPem": public_pem}, headers=OWNER)
        info = {
            "type": "service_account", "project_id": PROJECT, "private_key_id": "ci-key", "private_key": private_pem,
            "client_email": email, "client_id": "1", "token_uri": f"{base}/oauth2.googleapis.com/token",
        }
        for scopes in ([CLOUD_PLATFORM], [FIREBASE]):
            credentials = service_account.Credentials.from_service_account_info(info, scopes=scopes)
            credentials.refresh(google.auth.transport.requests.Request())
            assert credentials.token and credentials.expiry, scopes
        checks += 2

        options = {"api_endpoint": f"{base}/identitytoolkit.googleapis.com/"}
        v1 = build("identitytoolkit", "v1", credentials=credentials, client_options=options, static_discovery=True)
        v2 = build("identitytoolkit", "v2", credentials=credentials, client_options=options, static_discovery=True)
        keyed = dict(client_options=options, static_discovery=True, developerKey="any-key")
        v1_key = build("identitytoolkit", "v1", **keyed)
        v2_key = build("identitytoolkit", "v2", **keyed)

        # Config: switch TOTP on.
        config_name = f"projects/{PROJECT}/config"
        totp = {"mfa": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}}
        v2.projects().updateConfig(name=config_name, updateMask="mfa", body=totp).execute()
        assert v2.projects().getConfig(name=config_name).execute()["mfa"]["providerConfigs"][0]["state"] == "ENABLED"
        checks += 2

        # Tenants.
        parent = f"projects/{PROJECT}"
        tenant = v2.projects().tenants().create(parent=parent, body={"displayName": "Team-A"}).execute()
        tenant_id = tenant["name"].split("/")[-1]
        assert any(listed["name"] == tenant["name"] for listed in v2.projects().tenants().list(parent=parent).execute()["tenants"])
        patched = v2.projects().tenants().patch(name=tenant["name"], updateMask="displayName", body={"displayName": "Team-B"}).execute()
        assert patched["displayName"] == "Team-B", patched
        assert v2.projects().tenants().get(name=tenant["name"]).execute()["displayName"] == "Team-B"
        checks += 4

        # Users, in the tenant's path form and the project's.
        # (The discovery client names both a method and a resource `accounts`
        # under tenants, so it cannot reach the create method: google-auth's
        # AuthorizedSession makes that call.)
        session = google.auth.transport.requests.AuthorizedSession(credentials)
        created = session.post(f"{base}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/tenants/{tenant_id}/accounts",
                               json={"localId": "tenant-user", "email": "t@example.com", "password": "secret-pw"})
        assert created.status_code == 200 and created.json()["localId"] == "tenant-user", created.text
        found = v1.projects().tenants().accounts().lookup(targetProjectId=PROJECT, tenantId=tenant_id, body={"localId": ["tenant-user"]}).execute()
        assert found["users"][0]["email"] == "t@example.com", found
        assert "users" not in v1.projects().accounts().lookup(targetProjectId=PROJECT, body={"localId": ["tenant-user"]}).execute()
        v2.projects().tenants().delete(name=tenant["name"]).execute()
        expect_http_error(404, "TENANT_NOT_FOUND", v2.projects().tenants().get(name=tenant["name"]))
        checks += 4

        # The TOTP flow with API-key calls, pyotp computing the codes.
        user_email, password = "totp@example.com", "secret-pw"
        signed_up = v1_key.accounts().signUp(body={"email": user_email, "password": password, "returnSecureToken": True}).execute()
        uid = signed_up["localId"]
        v1.projects().accounts().update(targetProjectId=PROJECT, body={"localId": uid, "emailVerified": True}).execute()
        started = v2_key.accounts().mfaEnrollment().start(body={"idToken": signed_up["idToken"], "totpEnrollmentInfo": {}}).execute()
        secret = started["totpSessionInfo"]["sharedSecretKey"]
        clock = lambda: json.loads(call(f"{base}/emulator/v1/clock")[2])["nowMillis"] // 1000
        v2_key.accounts().mfaEnrollment().finalize(body={
            "idToken": signed_up["idToken"], "displayName": "pyotp",
            "totpVerificationInfo": {"sessionInfo": started["totpSessionInfo"]["sessionInfo"], "verificationCode": pyotp.TOTP(secret).at(clock())},
        }).execute()
        call(f"{base}/emulator/v1/clock", {"advanceSeconds": 30}, headers=OWNER)
        pending = v1_key.accounts().signInWithPassword(body={"email": user_email, "password": password}).execute()
        assert "idToken" not in pending and pending["mfaPendingCredential"], pending
        signed_in = v2_key.accounts().mfaSignIn().finalize(body={
            "mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": pending["mfaInfo"][0]["mfaEnrollmentId"],
            "totpVerificationInfo": {"verificationCode": pyotp.TOTP(secret).at(clock())},
        }).execute()
        assert signed_in["idToken"], signed_in
        checks += 3

        # Session cookie, listing, deletion.
        cookie = v1.projects().createSessionCookie(targetProjectId=PROJECT, body={"idToken": signed_in["idToken"], "validDuration": "3600"}).execute()
        assert cookie["sessionCookie"].count(".") == 2
        page = v1.projects().accounts().batchGet(targetProjectId=PROJECT, maxResults=10).execute()
        assert [user["localId"] for user in page["users"]] == [uid], page
        v1.projects().accounts().delete(targetProjectId=PROJECT, body={"localId": uid}).execute()
        assert "users" not in v1.projects().accounts().batchGet(targetProjectId=PROJECT).execute()
        expect_http_error(400, "USER_NOT_FOUND", v1.projects().accounts().delete(targetProjectId=PROJECT, body={"localId": uid}))
        checks += 4

        # A browser's CORS preflight, then the call itself.
        status, headers, _ = call(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", method="OPTIONS", headers={
            "Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
        assert status == 204 and headers.get("Access-Control-Allow-Origin") == "http://localhost:5173", (status, headers)
        status, headers, _ = call(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", {}, headers={"Origin": "http://localhost:5173"})
        assert status == 200 and headers.get("Access-Control-Allow-Origin") == "http://localhost:5173", (status, headers)
        # Another origin, and a Host that is not loopback (DNS rebinding), are refused.
        for refused in ({"Origin": "https://evil.example"}, {"Host": "evil.example"}):
            try:
                call(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", {}, headers=refused)
                raise AssertionError(f"{refused} was answered")
            except urllib.error.HTTPError as error:
                assert error.code == 403 and b"PERMISSION_DENIED" in error.read(), error
        checks += 4
        print(f"google-auth and google-api-python-client: {checks} checks passed against mfa emulator at {address}")
    finally:
        emulator.terminate()
        emulator.wait()


if __name__ == "__main__":
    main()
