"""firebase-admin (Python, from PyPI) in emulator mode against `mfa emulator`.

Creates, reads, lists, updates and deletes users; sets custom claims; and
checks that `verify_id_token(check_revoked=True)` and the session-cookie
calls accept an ID token our SDK obtained with TOTP (`mfa demo`), then
refuse it after our `revokeRefreshTokens` (`mfa admin users revoke`).

Usage: python3 firebase_admin_check.py PATH_TO_MFA
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from emulator_process import start_emulator

MFA = sys.argv[1]
PROJECT = "demo-firebase-admin"


def mfa(*arguments):
    result = subprocess.run([MFA, *arguments], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"mfa {arguments[0]} failed ({result.returncode}): {result.stdout}{result.stderr}"
    return result.stdout


def expect_error(kind, call):
    try:
        call()
    except kind:
        return
    raise AssertionError(f"expected {kind.__name__}")


def main():
    emulator, address = start_emulator(MFA, PROJECT)
    try:
        os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = address
        import firebase_admin
        from firebase_admin import auth

        from firebase_admin import _utils, credentials, tenant_mgt

        class EmulatorOwner(credentials.Base):
            """firebase-admin's user calls switch to `Bearer owner` under
            FIREBASE_AUTH_EMULATOR_HOST, but its tenant management (Python)
            ignores the variable: it is pointed at the emulator here, with
            the same credential."""

            def get_credential(self):
                return _utils.EmulatorAdminCredentials()

        tenant_mgt._TenantManagementService.TENANT_MGT_URL = f"http://{address}/identitytoolkit.googleapis.com/v2"
        firebase_admin.initialize_app(EmulatorOwner(), options={"projectId": PROJECT})
        checks = 0

        # Create, read, update.
        user = auth.create_user(uid="fa-1", email="fa1@example.com", password="secret-pw", display_name="FA One", email_verified=True)
        assert (user.uid, user.email, user.display_name, user.email_verified) == ("fa-1", "fa1@example.com", "FA One", True), user
        assert auth.get_user("fa-1").email == "fa1@example.com"
        assert auth.get_user_by_email("fa1@example.com").uid == "fa-1"
        expect_error(auth.UidAlreadyExistsError, lambda: auth.create_user(uid="fa-1"))
        expect_error(auth.EmailAlreadyExistsError, lambda: auth.create_user(email="fa1@example.com"))
        expect_error(auth.UserNotFoundError, lambda: auth.get_user("nobody"))
        expect_error(auth.UserNotFoundError, lambda: auth.get_user_by_email("nobody@example.com"))
        updated = auth.update_user("fa-1", display_name="FA Uno", disabled=True)
        assert updated.display_name == "FA Uno" and updated.disabled, updated
        assert not auth.update_user("fa-1", disabled=False).disabled
        auth.set_custom_user_claims("fa-1", {"role": "desk", "level": 2})
        assert auth.get_user("fa-1").custom_claims == {"role": "desk", "level": 2}, auth.get_user("fa-1").custom_claims
        checks += 10

        # List a page at a time, then delete.
        for index in range(2, 6):
            auth.create_user(uid=f"fa-{index}")
        page = auth.list_users(max_results=2)
        assert len(page.users) == 2 and page.has_next_page, page.users
        uids = [listed.uid for listed in auth.list_users(max_results=2).iterate_all()]
        assert uids == sorted(uids) and set(uids) == {f"fa-{index}" for index in range(1, 6)}, uids
        auth.delete_user("fa-5")
        expect_error(auth.UserNotFoundError, lambda: auth.get_user("fa-5"))
        expect_error(auth.UserNotFoundError, lambda: auth.delete_user("fa-5"))
        assert len(list(auth.list_users().iterate_all())) == 4
        checks += 5

        # A custom token (unsigned in emulator mode) exchanged for tokens, as a client would.
        custom = auth.create_custom_token("custom-fa", {"plan": "gold"}).decode()
        request = urllib.request.Request(
            f"http://{address}/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=any",
            data=json.dumps({"token": custom, "returnSecureToken": True}).encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            exchanged = json.load(response)
        assert exchanged["isNewUser"] is True, exchanged
        custom_claims = auth.verify_id_token(exchanged["idToken"])
        assert custom_claims["uid"] == "custom-fa" and custom_claims["plan"] == "gold", custom_claims
        assert custom_claims["firebase"]["sign_in_provider"] == "custom", custom_claims
        checks += 3

        # Email action links, returned instead of sent.
        link = auth.generate_email_verification_link("fa1@example.com")
        assert "/emulator/action?mode=verifyEmail" in link and "oobCode=" in link, link
        assert "mode=resetPassword" in auth.generate_password_reset_link("fa1@example.com")
        checks += 2

        # Tenants: create, list, scoped user calls (the tenant path forms), delete.
        tenant = tenant_mgt.create_tenant(display_name="Shop-One", allow_password_sign_up=True)
        assert any(listed.tenant_id == tenant.tenant_id for listed in tenant_mgt.list_tenants().iterate_all())
        shop = tenant_mgt.auth_for_tenant(tenant.tenant_id)
        buyer = shop.create_user(uid="buyer", email="buyer@example.com", password="secret-pw")
        assert buyer.tenant_id == tenant.tenant_id, buyer.tenant_id
        assert shop.get_user_by_email("buyer@example.com").uid == "buyer"
        expect_error(auth.UserNotFoundError, lambda: auth.get_user("buyer"))
        assert [listed.uid for listed in shop.list_users().iterate_all()] == ["buyer"]
        shop.update_user("buyer", email_verified=True)
        assert shop.get_user("buyer").email_verified
        assert "tenantId=" + tenant.tenant_id in shop.generate_email_verification_link("buyer@example.com")
        shop.delete_user("buyer")
        expect_error(auth.UserNotFoundError, lambda: shop.get_user("buyer"))
        tenant_mgt.delete_tenant(tenant.tenant_id)
        expect_error(tenant_mgt.TenantNotFoundError, lambda: tenant_mgt.get_tenant(tenant.tenant_id))
        checks += 9

        # A TOTP sign-in made by our SDK (mfa demo), checked by firebase-admin.
        with tempfile.TemporaryDirectory() as folder:
            token_file = os.path.join(folder, "id-token")
            mfa("demo", "--no-qr", "--emulator", address, "--project", PROJECT, "--id-token-file", token_file, "--keep-factor")
            assert oct(os.stat(token_file).st_mode & 0o777) == "0o600"
            with open(token_file) as handle:
                id_token = handle.read()
        claims = auth.verify_id_token(id_token, check_revoked=True)
        assert claims["firebase"]["sign_in_second_factor"] == "totp", claims
        uid = claims["uid"]
        # (firebase-admin's Python UserRecord shows no factors: our CLI does.)
        shown = json.loads(mfa("admin", "users", "get", "--uid", uid, "--project", PROJECT, "--emulator", address))
        assert [factor["factorId"] for factor in shown["enrolledFactors"]] == ["totp"], shown
        cookie = auth.create_session_cookie(id_token, expires_in=datetime.timedelta(hours=1))
        session = auth.verify_session_cookie(cookie, check_revoked=True)
        assert session["uid"] == uid and session["firebase"]["sign_in_second_factor"] == "totp", session
        checks += 4

        # firebase-admin in production mode (signatures checked), pointed at
        # the emulator's x509 key routes by URL alone.
        from firebase_admin import _token_gen
        _token_gen.ID_TOKEN_CERT_URI = f"http://{address}/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
        _token_gen.COOKIE_CERT_URI = f"http://{address}/www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys"
        del os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
        try:
            production = firebase_admin.initialize_app(EmulatorOwner(), options={"projectId": PROJECT}, name="production-mode")
            verified = auth.verify_id_token(id_token, app=production)
            assert verified["firebase"]["sign_in_second_factor"] == "totp", verified
            assert auth.verify_session_cookie(cookie, app=production)["uid"] == uid
            tampered = id_token[:-8] + ("AAAAAAAA" if not id_token.endswith("AAAAAAAA") else "BBBBBBBB")
            expect_error(auth.InvalidIdTokenError, lambda: auth.verify_id_token(tampered, app=production))
            expect_error(auth.InvalidIdTokenError, lambda: auth.verify_id_token(cookie, app=production))
        finally:
            os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = address
        checks += 4

        # Our revokeRefreshTokens (through the CLI); firebase-admin compares
        # `iat` in whole seconds, so revoke in a later second than the sign-in.
        time.sleep(1.1)
        mfa("admin", "users", "revoke", "--uid", uid, "--project", PROJECT, "--emulator", address)
        assert auth.get_user(uid).tokens_valid_after_timestamp > 0
        expect_error(auth.RevokedIdTokenError, lambda: auth.verify_id_token(id_token, check_revoked=True))
        expect_error(auth.RevokedSessionCookieError, lambda: auth.verify_session_cookie(cookie, check_revoked=True))
        auth.verify_id_token(id_token)  # without the check, the token itself still verifies
        checks += 4
        print(f"firebase-admin {firebase_admin.__version__}: {checks} checks passed against mfa emulator at {address}")
    finally:
        emulator.terminate()
        emulator.wait()


if __name__ == "__main__":
    main()
