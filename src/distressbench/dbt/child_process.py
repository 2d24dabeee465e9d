"""The one protocol of a build's child processes (dbt's, dbt/process.py; the Spark stages',
publish/spark/stages.py): the parent sends orders and the child answers each, one JSON line
per order and per answer; a child never outlives its parent, and its parent ends it.

`Child.start` runs `python -m MODULE PARENT_PID ANSWERS_FD ARGUMENTS...`: the child reads its
orders on stdin and writes its answers to the pipe ANSWERS_FD (`Answers`), so its stdout and
stderr stay free for its output (the build's, or a log file). An answer missing (`receive`
gives None) means the child has ended; `exit_code` says how.

In the child, `end_with_parent` asks Linux to send it SIGTERM when the parent ends (prctl
PR_SET_PDEATHSIG), so a CLI killed with -9 takes it along, and leaves Ctrl-C to the parent:
the terminal sends SIGINT to the whole process group, and the parent, unwinding, ends its
children with `stop` (SIGTERM, then SIGKILL), as it does on SIGTERM.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

STOP_TIMEOUT_S = 10
_PR_SET_PDEATHSIG = 1


class Child:
    """A child process that answers each order the parent sends it."""

    def __init__(self, process: subprocess.Popen[str], answers: IO[str]) -> None:
        self._process = process
        self._answers = answers

    @classmethod
    def start(
        cls,
        module: str,
        arguments: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        output: IO[str] | None = None,
    ) -> Child:
        """Start `python -m module` with `arguments` in `cwd` with the environment `env`, its
        stdout and stderr going to `output` (None: this process's)."""
        read, write = os.pipe()
        answers = os.fdopen(read, encoding="utf-8")
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", module, str(os.getpid()), str(write), *arguments],
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.PIPE,
                stdout=output,
                stderr=output,
                pass_fds=(write,),
                text=True,
            )
        except BaseException:
            answers.close()
            raise
        finally:
            os.close(write)
        return cls(process, answers)

    @property
    def pid(self) -> int:
        return self._process.pid

    def running(self) -> bool:
        """Whether the child still runs and takes orders."""
        stdin = self._process.stdin
        return stdin is not None and not stdin.closed and self._process.poll() is None

    def send(self, order: Any) -> None:
        """Send one order (nothing if the child has ended: its missing answer says so)."""
        stdin = self._process.stdin
        if stdin is None or not self.running():
            return
        with contextlib.suppress(BrokenPipeError):  # it ended meanwhile
            stdin.write(json.dumps(order) + "\n")
            stdin.flush()

    def receive(self) -> Any:
        """The child's next answer; None when it ended before giving one."""
        line = self._answers.readline()
        return json.loads(line) if line else None

    def exit_code(self) -> int:
        """The exit code of the child, once it has ended (waits for it)."""
        return self._process.wait()

    def close_orders(self, *, wait: bool) -> None:
        """Send no more orders (the child ends when its stdin closes); with `wait`, give it
        STOP_TIMEOUT_S to end by itself."""
        self._close_stdin()
        if wait:
            with contextlib.suppress(subprocess.TimeoutExpired):  # then `stop` ends it
                self._process.wait(timeout=STOP_TIMEOUT_S)

    def stop(self) -> None:
        """End the child (SIGTERM, then SIGKILL after STOP_TIMEOUT_S; nothing if it has
        ended), wait for it and close its pipes."""
        process = self._process
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._close_stdin()
        self._answers.close()

    def _close_stdin(self) -> None:
        """Close the child's stdin (an order it ended before reading is dropped)."""
        if self._process.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self._process.stdin.close()


class Answers:
    """In the child: the orders read from stdin, and the answers written to the parent's pipe."""

    def __init__(self, answers_fd: int) -> None:
        self._answers = os.fdopen(answers_fd, "w", encoding="utf-8")

    def orders(self) -> Iterator[Any]:
        """Each order the parent sends, until it closes the child's stdin."""
        for line in sys.stdin:
            yield json.loads(line)

    def answer(self, answer: Any) -> None:
        self._answers.write(json.dumps(answer) + "\n")
        self._answers.flush()

    def close(self) -> None:
        self._answers.close()


def end_with_parent(parent: int) -> None:
    """In the child: have Linux send this process SIGTERM when its parent ends (end now if it
    already has), and ignore Ctrl-C, which the parent turns into ending this process."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        sys.exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
