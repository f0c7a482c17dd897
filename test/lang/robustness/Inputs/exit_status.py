"""Runs a command and checks its exit status, for tests where lit's `not`
cannot tell exit 1 (a diagnostic) from exit 2 (usage) or a crash.

usage: exit_status.py EXPECTED COMMAND [ARGS...]
Stdout and stderr pass through; the script exits 0 only if the command exited
with EXPECTED (a crash, which Python reports as a negative status, never does).
"""
import subprocess
import sys

expected = int(sys.argv[1])
result = subprocess.run(sys.argv[2:])
if result.returncode != expected:
    sys.stderr.write("exit_status.py: expected exit %d, got %d\n"
                     % (expected, result.returncode))
    sys.exit(1)
