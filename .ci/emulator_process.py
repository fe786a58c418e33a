"""Starting `mfa emulator` for the CI checks written in Python."""
import subprocess


def start_emulator(mfa, project):
    """Starts `mfa emulator` on a free loopback port; returns the process and its HOST:PORT."""
    process = subprocess.Popen([mfa, "emulator", "--port", "0", "--project", project], stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline().strip()
    assert line.startswith("listening on http://"), line
    return process, line[len("listening on http://"):]
