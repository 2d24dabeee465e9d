"""What a build's child processes share (dbt's, dbt_process.py; the Spark stages',
spark_stages.py): a child never outlives its parent, and its parent ends it.

In the child, `end_with_parent` asks Linux to send it SIGTERM when the parent ends (prctl
PR_SET_PDEATHSIG), so a CLI killed with -9 takes it along, and leaves Ctrl-C to the parent:
the terminal sends SIGINT to the whole process group, and the parent, unwinding, ends its
children with `stop` (SIGTERM, then SIGKILL), as it does on SIGTERM.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys

STOP_TIMEOUT_S = 10
_PR_SET_PDEATHSIG = 1


def end_with_parent(parent: int) -> None:
    """In the child: have Linux send this process SIGTERM when its parent ends (end now if it
    already has), and ignore Ctrl-C, which the parent turns into ending this process."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        sys.exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop(process: subprocess.Popen[str]) -> None:
    """End `process` (SIGTERM, then SIGKILL after STOP_TIMEOUT_S; nothing if it has ended),
    wait for it and close its pipes."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()
