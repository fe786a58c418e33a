#!/usr/bin/env python3
"""SIGTERM to Examples/TOTPLogin under load: the server stops taking
connections, answers every request it took in full, then its services stop
in order (key refresher, sweeper, PostgreSQL pool, emulator) and it exits 0.

Usage: totplogin_sigterm.py TOTPLOGIN_BINARY
(with IDENTITY_TEST_POSTGRES_URL and PGPASSWORD in the environment, the app
shares its state through PostgreSQL, as .ci/postgres_start.sh writes them;
without them it runs alone)

Six clients each loop on a fresh connection: GET /login (a page and a sealed
cookie), then POST /login with a wrong password (a call to the embedded
emulator and an attempt counted in the store). Two seconds in, the app gets
SIGTERM. Each request ends as one of:

- answered: a whole response (status line, headers, every body byte);
- refused: the connection was refused, or closed before any response byte
  (the listener had closed, or the connection was accepted but idle when
  the server quiesced: no request of it was processed);
- broken: part of a response, or an error after the first byte.

The run fails on any broken request, when no request was in flight at the
signal (started before it, answered after it), or when the app does not exit
0 with its "stopped" line within 30 seconds.
"""
import base64
import http.client
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

CLIENTS = 6


def start(binary):
    arguments = [binary, "--port", "0"]
    env = dict(os.environ)
    if os.environ.get("IDENTITY_TEST_POSTGRES_URL"):
        arguments += ["--postgres", os.environ["IDENTITY_TEST_POSTGRES_URL"]]
        env["TOTPLOGIN_SEALING_KEYS"] = "sigterm:" + base64.b64encode(os.urandom(32)).decode()
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines = []
    deadline = time.time() + 60
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip())
        if match := re.match(r"listening on http://([^:]+):(\d+)", line):
            return process, match.group(1), int(match.group(2)), lines
    process.kill()
    sys.exit("the example did not start:\n" + "\n".join(lines))


def exchange(host, port, method, path, body=None, headers=None):
    """One request on a fresh connection: (outcome, status, response headers, body)."""
    connection = http.client.HTTPConnection(host, port, timeout=30)
    received_any = False
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        received_any = True
        data = response.read()
        return "answered", response.status, response.getheaders(), data
    except (ConnectionRefusedError, http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as error:
        if not received_any:
            return "refused", None, [], b""
        return "broken", repr(error), [], b""
    except Exception as error:  # an incomplete read, a timeout after the head
        return ("broken" if received_any else "refused"), repr(error), [], b""
    finally:
        connection.close()


def client(host, port, results, stop):
    while not stop.is_set():
        started = time.monotonic()
        outcome, status, headers, page = exchange(host, port, "GET", "/login")
        results.append((started, time.monotonic(), outcome, "GET /login", status))
        if outcome != "answered":
            if outcome == "refused":
                return
            continue
        cookie = "; ".join(value.split(";")[0] for name, value in headers if name.lower() == "set-cookie")
        match = re.search(rb'name="csrf" value="([^"]+)"', page)
        if not match:
            results.append((started, time.monotonic(), "broken", "GET /login without a CSRF field", status))
            continue
        form = urllib.parse.urlencode({"csrf": match.group(1).decode(), "email": "nobody@example.com", "password": "wrong"})
        started = time.monotonic()
        outcome, status, _, _ = exchange(host, port, "POST", "/login", form,
                                         {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
        results.append((started, time.monotonic(), outcome, "POST /login", status))
        if outcome == "refused":
            return


def main():
    process, host, port, lines = start(sys.argv[1])
    results, stop = [], threading.Event()
    threads = [threading.Thread(target=client, args=(host, port, results, stop)) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    time.sleep(2)
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        output, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        stop.set()
        sys.exit("the app did not exit within 30 s of SIGTERM")
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    exited = time.monotonic()

    counts = {"answered": 0, "refused": 0, "broken": 0}
    in_flight = 0
    for started, ended, outcome, _, _ in results:
        counts[outcome] += 1
        if outcome == "answered" and started < signalled < ended:
            in_flight += 1
    statuses = sorted({status for _, _, outcome, _, status in results if outcome == "answered"})
    print(f"SIGTERM under load ({CLIENTS} clients, {'PostgreSQL' if os.environ.get('IDENTITY_TEST_POSTGRES_URL') else 'in-memory'} state): "
          f"{counts['answered']} answered in full (statuses {statuses}), {in_flight} of them in flight at the signal; "
          f"{counts['refused']} refused or closed before any byte; {counts['broken']} broken; "
          f"exit {process.returncode} {exited - signalled:.1f} s after the signal")
    tail = (output or "").strip().splitlines()[-3:]
    for line in tail:
        print("app:", line)
    broken = [r for r in results if r[2] == "broken"]
    if broken:
        sys.exit(f"{len(broken)} broken answers, the first: {broken[0][3]} ({broken[0][4]})")
    if in_flight == 0:
        sys.exit("no request was in flight at the signal: the test proved nothing")
    if process.returncode != 0:
        sys.exit(f"the app exited {process.returncode}:\n{output}")
    if "stopped: requests in flight answered" not in (output or ""):
        sys.exit("the app did not print its 'stopped' line:\n" + (output or ""))


if __name__ == "__main__":
    main()
