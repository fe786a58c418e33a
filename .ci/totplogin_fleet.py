#!/usr/bin/env python3
"""Examples/TOTPLogin on a fleet: two instances sharing PostgreSQL and one
emulator, behind an nginx upstream with round robin.

Usage: totplogin_fleet.py MFA_BINARY TOTPLOGIN_BINARY SCREENSHOT_DIR
(with IDENTITY_TEST_POSTGRES_URL and PGPASSWORD in the environment, as
.ci/postgres_start.sh writes them)

1. The headless-Chromium story of totplogin_browser.py through nginx, every
   request alternating instances (nginx's log shows which), with instance A
   restarted between the password step and the TOTP step.
0. Started without sealing keys, an instance refuses to run (the store would
   hold refresh tokens and TOTP keys in clear); both get the same keys.
2. Straight to the instances: a code accepted through A is refused when
   replayed through B; wrong codes spread over both stop at the app's
   per-account limit (the 11th is refused with `attempt-limit`, though no
   challenge saw Identity Platform's own limit).
3. Revocation fan-out (issue 58): a session cookie B has checked (so B holds
   the account's state, for up to 10 s) is refused by B within 250 ms (p99
   over 50 trials) of "sign out everywhere" answering on A; then PostgreSQL
   restarts, both instances say their revocation channel went down and came
   back, and 10 more trials meet the same bound.
4. An outage of Google's key routes (the emulator's faults): instance C,
   started during it, verifies a valid session cookie with the key set the
   fleet stored in PostgreSQL, refuses one signed by another key under the
   same `kid`, says so once in its log and counts the shared set in
   `firebase_signing_key_fetches_total{outcome="shared"}`.
"""
import collections
import glob
import json
import math
import http.cookiejar
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import base64
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from totplogin_browser import oathtool, run_story, wrong  # noqa: E402

# Read when run; other checks import the helpers (Browser, enrolled_user, expect).
MFA, TOTPLOGIN, SHOTS = (sys.argv[1:4] + [None] * 3)[:3] if __name__ == "__main__" else (None, None, None)
POSTGRES = os.environ.get("IDENTITY_TEST_POSTGRES_URL", "")
PROJECT = "demo-totp-login"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_line(process, pattern, name, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        print(f"{name}:", line.rstrip(), flush=True)
        match = re.search(pattern, line)
        if match:
            return match
    process.kill()
    sys.exit(f"{name} did not print {pattern!r}")


def drain(process, name, lines_seen=None):
    """Keeps printing a process's output so its pipe never fills; appends
    the revocation channel's lines to `lines_seen`."""
    import threading

    def pump():
        for line in process.stdout:
            if lines_seen is not None:
                lines_seen.append(line)
            if "warning" in line or "error" in line or "revocation channel" in line:
                print(f"{name}:", line.rstrip(), flush=True)
    threading.Thread(target=pump, daemon=True).start()


class Instance:
    def __init__(self, name, port, emulator, public_url, extra=()):
        self.name, self.port = name, port
        self.arguments = [TOTPLOGIN, "--port", str(port), "--emulator", emulator, "--postgres", POSTGRES,
                          "--trust-forwarded-for", "--public-url", public_url] + list(extra)
        self.process = None
        self.lines = []

    def start(self):
        started = time.time()
        self.process = subprocess.Popen(self.arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wait_for_line(self.process, r"listening on", self.name)
        drain(self.process, self.name, self.lines)
        return time.time() - started

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=20)

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"


NGINX_CONF = """
daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 256; }}
http {{
    log_format fleet '$request_method $uri $status $upstream_addr';
    access_log {dir}/access.log fleet;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream totplogin {{
        server 127.0.0.1:{a};
        server 127.0.0.1:{b};
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://totplogin;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        }}
    }}
}}
"""


class Browser:
    """urllib with one cookie jar (cookies ignore ports: one jar serves A and B)."""

    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = ""

    def request(self, url, fields=None):
        data = None
        if fields is not None:
            fields = dict(fields, csrf=self.csrf)
            data = urllib.parse.urlencode(fields).encode()
        try:
            response = self.opener.open(urllib.request.Request(url, data=data), timeout=30)
            status, body, final = response.status, response.read().decode(), response.url
        except urllib.error.HTTPError as error:
            status, body, final = error.code, error.read().decode(), error.url
        token = re.search(r'name="csrf" value="([^"]+)"', body)
        if token:
            self.csrf = token.group(1)
        return status, body, urllib.parse.urlparse(final).path


def expect(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message, flush=True)


def signed_up_user(a, b, label="fleet"):
    """A user signed up through B after A's form, its email verified; returns (browser, email, password)."""
    browser = Browser()
    email, password = f"{label}-{uuid.uuid4().hex[:8]}@example.com", f"pw-{uuid.uuid4().hex}"
    browser.request(a.base + "/signup")
    _, body, _ = browser.request(b.base + "/signup", {"email": email, "password": password})
    link = re.search(r'id="verification-link" href="([^"]+)"', body).group(1).replace("&amp;", "&")
    urllib.request.urlopen(link, timeout=30).read()
    return browser, email, password


def enrolled_user(a, b):
    """A user with a TOTP factor, signed out; returns (browser, email, password, secret)."""
    browser, email, password = signed_up_user(a, b)
    browser.request(a.base + "/login")
    _, _, path = browser.request(b.base + "/login", {"email": email, "password": password})
    expect(path == "/account", "signed in with the password through B after A's form")
    _, body, _ = browser.request(a.base + "/enroll")
    secret = re.search(r'id="secret">([^<]+)<', body).group(1).strip()
    status, body, _ = browser.request(b.base + "/enroll", {"displayName": "fleet", "code": oathtool(secret)})
    expect(status == 200 and body.count('class="recovery-code"') == 10, "enrolled through B with the key A showed (the recovery codes shown once)")
    browser.request(a.base + "/account")
    browser.request(b.base + "/logout", {})
    return browser, email, password, secret


def percentile(values, fraction):
    """Nearest rank: the smallest value at or above `fraction` of them."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(len(ordered) * fraction) - 1)]


def revocation_trials(a, b, email, password, count, label):
    """Each trial: sign in through A (password only), let B check the
    session cookie (B now holds the account's state), wait a second
    (validSince is whole seconds), sign out everywhere through A, and poll
    B with the cookie until it is refused. Returns the milliseconds from
    A's answer to B's first refusal."""
    latencies = []
    for trial in range(count):
        browser = Browser()
        for attempt in range(20):  # after a database restart the pools take a moment
            browser.request(a.base + "/login")
            _, _, path = browser.request(a.base + "/login", {"email": email, "password": password})
            if path == "/account":
                break
            time.sleep(0.5)
        assert path == "/account", f"{label} trial {trial + 1}: the sign-in through A ended on {path}"
        thief = Browser()
        for cookie in browser.jar:
            thief.jar.set_cookie(cookie)
        time.sleep(1.05)
        _, _, path = thief.request(b.base + "/account")
        assert path == "/account", f"B refused a fresh cookie: {path}"
        browser.request(a.base + "/account")
        status, _, _ = browser.request(a.base + "/logout", {})
        answered = time.perf_counter()
        assert status == 200, status
        while True:
            _, _, path = thief.request(b.base + "/account")
            refused = time.perf_counter()
            if path != "/account":
                break
            if refused - answered > 15:
                raise AssertionError(f"B still accepts the cookie {refused - answered:.1f} s after the revocation")
        latencies.append((refused - answered) * 1000)
    p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
    print(f"revocation fan-out, {label}: {count} trials, p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(latencies):.1f} ms "
          f"(from A's answer to B's first refusal)", flush=True)
    return latencies


def forged(token):
    """`token`'s header and claims, signed by another RSA key: what a
    stored key set replaced by a stranger would let through."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa
    header, claims, _ = token.split(".")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    signature = key.sign(f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{header}.{claims}." + base64.urlsafe_b64encode(signature).decode().rstrip("=")


def set_faults(emulator_address, faults):
    request = urllib.request.Request(
        f"http://{emulator_address}/emulator/v1/faults", method="PUT" if faults else "DELETE",
        data=json.dumps({"faults": faults}).encode() if faults else None,
        headers={"Authorization": "Bearer owner", "Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).read()


def key_route_outage(a, emulator_address, public_url, email, password):
    """Instance C starts while both key routes answer 503."""
    set_faults(emulator_address, [{"operation": operation, "kind": "unavailable"}
                                  for operation in ("getIDTokenSigningKeys", "getSessionCookieSigningKeys")])
    metrics_port = free_port()
    c = Instance("C", free_port(), emulator_address, public_url, ["--metrics-port", str(metrics_port)])
    try:
        c.start()
        browser = Browser()
        browser.request(a.base + "/login")
        _, _, path = browser.request(a.base + "/login", {"email": email, "password": password})
        assert path == "/account", path
        _, _, path = browser.request(c.base + "/account")
        expect(path == "/account", "C, started while the key routes are down, accepts a valid session cookie")
        cookie = next(cookie for cookie in browser.jar if cookie.name == "__session")
        cookie.value = forged(cookie.value)
        _, _, path = browser.request(c.base + "/account")
        expect(path == "/login", "and refuses one signed by another key under the same kid")
        said = [line for line in c.lines if "verifying with the key set the fleet stored" in line]
        sets = sorted(re.search(r"keySet=(\S+)", line).group(1) for line in said)
        expect(sets == ["identity-admin.signing-keys.id-tokens", "identity-admin.signing-keys.session-cookies"],
               "C says so once per key set in its log: " + (said[0].strip() if said else "nothing"))
        scrape = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
        shared = [line for line in scrape.splitlines() if line.startswith('firebase_signing_key_fetches_total{outcome="shared"}')]
        expect(shared and float(shared[0].split()[-1]) >= 1, f"and counts it: {shared[0] if shared else 'no such line'}")
    finally:
        set_faults(emulator_address, [])
        if c.process and c.process.poll() is None:
            c.stop()


def restart_postgres():
    socket_dir = os.environ["IDENTITY_TEST_POSTGRES_ADMIN_SOCKET"]
    pg_ctl = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]
    command = [pg_ctl, f"--pgdata={socket_dir}/data", "--wait", "-m", "fast", "restart"]
    if os.getuid() == 0:
        command = ["runuser", "-u", "postgres", "--"] + command
    started = time.time()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    print(f"PostgreSQL restarted in {time.time() - started:.1f} s", flush=True)


def main():
    work = tempfile.mkdtemp(prefix="totplogin-fleet-")
    processes = []
    try:
        emulator = subprocess.Popen([MFA, "emulator", "--port", "0", "--project", PROJECT],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        processes.append(emulator)
        emulator_address = wait_for_line(emulator, r"listening on http://(\S+)", "emulator").group(1)
        drain(emulator, "emulator")
        nginx_port = free_port()
        public_url = f"http://127.0.0.1:{nginx_port}"
        a = Instance("A", free_port(), emulator_address, public_url)
        b = Instance("B", free_port(), emulator_address, public_url)
        without_keys = dict(os.environ)
        without_keys.pop("TOTPLOGIN_SEALING_KEYS", None)
        refused = subprocess.run(a.arguments, env=without_keys, capture_output=True, text=True, timeout=60)
        if refused.returncode == 0 or "needs sealing keys" not in refused.stdout + refused.stderr:
            sys.exit(f"an instance started on PostgreSQL without sealing keys: {refused.returncode} {refused.stderr[-400:]}")
        print("without sealing keys:", (refused.stdout + refused.stderr).strip().splitlines()[-1], flush=True)
        # The same key ring on every instance; the key itself is never printed.
        os.environ["TOTPLOGIN_SEALING_KEYS"] = "fleet:" + base64.b64encode(os.urandom(32)).decode()
        for instance in (a, b):
            print(f"instance {instance.name} up in {instance.start():.1f} s (migrate() ran at its start)", flush=True)
            processes.append(instance)
        with open(os.path.join(work, "nginx.conf"), "w") as conf:
            conf.write(NGINX_CONF.format(dir=work, a=a.port, b=b.port, port=nginx_port))
        nginx = subprocess.Popen(["nginx", "-p", work, "-c", os.path.join(work, "nginx.conf")])
        processes.append(nginx)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", nginx_port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        print(f"nginx at {public_url}, round robin over A :{a.port} and B :{b.port}", flush=True)

        def restart_a():
            started = time.time()
            a.stop()
            print(f"instance A stopped between the password step and the TOTP step", flush=True)
            a.start()
            print(f"instance A restarted in {time.time() - started:.1f} s", flush=True)

        run_story(public_url, SHOTS, before_code_step=restart_a)
        with open(os.path.join(work, "access.log")) as log:
            lines = [line.split() for line in log if line.strip()]
        upstreams = collections.Counter(line[-1] for line in lines)
        print(f"nginx sent {len(lines)} requests: " + ", ".join(f"{address}: {count}" for address, count in sorted(upstreams.items())))
        expect(len([u for u in upstreams if u.endswith((f":{a.port}", f":{b.port}"))]) >= 2, "the story's requests reached both instances")

        # A code accepted through A is refused when replayed through B.
        browser, email, password, secret = enrolled_user(a, b)
        code = oathtool(secret, 30)
        browser.request(a.base + "/login")
        _, _, path = browser.request(a.base + "/login", {"email": email, "password": password})
        expect(path == "/login/totp", "the password step on A")
        _, _, path = browser.request(a.base + "/login/totp", {"code": code})
        expect(path == "/account", "the code accepted through A")
        browser.request(b.base + "/logout", {})
        browser.request(b.base + "/login")
        _, _, path = browser.request(b.base + "/login", {"email": email, "password": password})
        status, body, _ = browser.request(b.base + "/login/totp", {"code": code})
        expect(status == 401 and "ERROR_INVALID_VERIFICATION_CODE" in body, "the same code replayed through B is refused")

        # Wrong codes spread over both instances stop at the app's limit.
        browser, email, password, secret = enrolled_user(b, a)
        instances, wrong_codes = [a, b], 0
        while wrong_codes < 10:
            browser.request(a.base + "/login")
            _, _, path = browser.request(b.base + "/login", {"email": email, "password": password})
            expect(path == "/login/totp", f"a new challenge after {wrong_codes} wrong codes")
            for _ in range(4):
                if wrong_codes == 10:
                    break
                status, _, _ = browser.request(instances[wrong_codes % 2].base + "/login/totp", {"code": wrong(oathtool(secret, 60))})
                assert status == 401, status
                wrong_codes += 1
        print(f"10 wrong codes refused, alternating A and B, over 3 challenges", flush=True)
        browser.request(a.base + "/login")
        browser.request(a.base + "/login", {"email": email, "password": password})
        status, body, _ = browser.request(b.base + "/login/totp", {"code": oathtool(secret, 60)})
        expect(status == 429 and 'data-reason="attempt-limit"' in body, "the 11th code (a right one) is refused by the app's limit: 429 attempt-limit")

        # Revocation fan-out: one password-only user, 50 trials, then a database restart.
        _, email, password = signed_up_user(a, a, "fanout")
        latencies = revocation_trials(a, b, email, password, 50, "before a restart")
        expect(percentile(latencies, 0.99) <= 250, "p99 from a revocation on A to the refusal on B is at most 250 ms")
        for instance in (a, b):
            instance.lines.clear()
        restart_postgres()
        deadline = time.time() + 60
        while time.time() < deadline and not all(
                any("is back" in line for line in instance.lines) for instance in (a, b)):
            time.sleep(0.2)
        for instance in (a, b):
            expect(any("is down" in line for line in instance.lines)
                   and any("is back" in line for line in instance.lines),
                   f"instance {instance.name} said its revocation channel went down and came back")
        latencies = revocation_trials(a, b, email, password, 10, "after PostgreSQL restarted")
        expect(percentile(latencies, 0.99) <= 250, "after the restart, the refusal on B again within 250 ms")

        key_route_outage(a, emulator_address, public_url, email, password)
        print("fleet checks passed", flush=True)
    finally:
        for process in reversed(processes):
            if isinstance(process, Instance):
                process = process.process
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
