#!/usr/bin/env python3
"""Runs a `swift test` command with a time limit, passing its output through.

A test run that hangs would otherwise hold CI until its own limit and say
nothing about why. Past LIMIT seconds this names the tests that started and
never ended (Swift Testing's "◇ Test NAME started." and its passed/failed
lines), lists the processes still running under the run, stops them all
and exits 124.

usage: bounded_tests.py LIMIT_SECONDS COMMAND...
"""
import collections
import os
import re
import signal
import subprocess
import sys
import threading
import time

# A test's own lines; a parameterised test's cases ("Test case passing …")
# and the run's ("Test run …") are left out: their ends are not all printed.
STARTED = re.compile(r"^◇ Test (?!case passing |run )(.+?) started\.$")
ENDED = re.compile(r"^[✔✘] Test (.+?)(?: with \d+ test cases?)? (?:passed|failed)(?: after| with|\.)")


def main() -> int:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    limit = int(sys.argv[1])
    process = subprocess.Popen(
        sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    running: collections.Counter = collections.Counter()

    def relay() -> None:
        for raw in process.stdout:
            line = raw.decode("utf-8", "replace")
            sys.stdout.write(line)
            text = line.rstrip("\n")
            if match := STARTED.match(text):
                running[match.group(1)] += 1
            elif match := ENDED.match(text):
                running[match.group(1)] -= 1
        sys.stdout.flush()

    reader = threading.Thread(target=relay, daemon=True)
    reader.start()
    try:
        status = process.wait(timeout=limit)
        reader.join()
        return status
    except subprocess.TimeoutExpired:
        pass
    time.sleep(1)
    unfinished = sorted(name for name, count in running.items() if count > 0)
    print(f"\nbounded_tests: still running after {limit} s; tests that started and did not end:", flush=True)
    for name in unfinished or ["(none seen: the hang is outside a test)"]:
        print(f"  {name}")
    tree = subprocess.run(
        ["ps", "-o", "pid,stat,etime,args", "--forest", "-s", str(process.pid)],
        capture_output=True, text=True, check=False)
    print("processes under the run:\n" + tree.stdout, flush=True)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return 124


if __name__ == "__main__":
    sys.exit(main())
