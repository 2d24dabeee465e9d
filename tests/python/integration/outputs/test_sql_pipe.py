"""`distressbench sql ... | head -1` as a process: a reader that stops early ends the command
quietly, as a program ended by SIGPIPE does."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path


def test_a_reader_that_stops_early_ends_the_command_quietly(small_warehouse: Path) -> None:
    """`distressbench sql ... | head -1`: the rest of the output has nowhere to go; the command
    ends as a program ended by SIGPIPE does (exit 141), with nothing on stderr."""
    query = "select repeat('x', 2000) as wide from verdicts"  # 200 rows of 2 kB: more than a pipe holds
    command = [sys.executable, "-m", "distressbench.cli", "sql", query, "--warehouse", str(small_warehouse)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().strip() == b"wide"
        process.stdout.close()
        err = process.stderr.read()
        code = process.wait(timeout=60)
    assert (code, err) == (128 + signal.SIGPIPE, b"")
