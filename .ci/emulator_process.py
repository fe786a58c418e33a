"""Starting `mfa emulator` for the CI checks written in Python."""
import os
import subprocess

# Every server a check starts: a crash ends the process at once (Swift's
# backtracer would otherwise keep a swift-backtrace process spinning).
CRASH_FAST = dict(os.environ, SWIFT_BACKTRACE="enable=no")


def start_emulator(mfa, project):
    """Starts `mfa emulator` on a free loopback port; returns the process and its HOST:PORT."""
    process = subprocess.Popen([mfa, "emulator", "--port", "0", "--project", project], stdout=subprocess.PIPE, text=True, env=CRASH_FAST)
    line = process.stdout.readline().strip()
    assert line.startswith("listening on http://"), line
    return process, line[len("listening on http://"):]
