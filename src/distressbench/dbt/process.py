"""dbt in a child process: the project parsed at its start, then one `dbt` command per order.

`DbtProcess.start` starts `python -m distressbench.dbt.process`, which parses the project
and then runs each command it is sent (`DbtProcess.invoke`) with a `dbtRunner` (the first on
the parse it made), answering with what each node did. dbt parses partially: its target folder is kept between
builds, and a new one starts from this checkout's latest parse (`saved_parse`). dbt sees the
same paths in every build, as its saved parse requires: the child runs in its database's
folder, where the profile names the database file, and `release-links` (a link to the
folder of links) the release. dbt logs as it always does: its console output goes to
`console.log` in the log folder, its file log to `logs/dbt.log`, its artifacts
(run_results.json, manifest.json) to the target folder.

The child never outlives its parent (child_process.py): it asks Linux to send it SIGTERM
when the parent ends (prctl PR_SET_PDEATHSIG), so a CLI killed with -9 takes it along;
`DbtProcess.stop` ends it (SIGTERM, then SIGKILL) and waits for it. It writes its pid into
the log folder (`dbt.pid`) so that a later build, under the build lock, can end one that is
still there (`end_leftover`). Between commands the child closes its DuckDB connection, so
the gate's own connection can open the same database file.

Run as `python -m distressbench.dbt.process PARENT_PID ANSWERS_FD PROJECT_DIR` by DbtProcess only
(child_process.Child: orders and answers are JSON lines).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distressbench.dbt import child_process
from distressbench.errors import DistressbenchError
from distressbench.settings import temporary_folder

CONSOLE_LOG = "console.log"  # dbt's console output, in the log folder
PID_FILE = "dbt.pid"  # the child's pid, in the log folder
PARTIAL_PARSE = "partial_parse.msgpack"  # dbt's saved parse, in its target folder
PROJECT_MARKER = "project-folder.txt"  # the project folder whose parse the target folder saved
MODULE = "distressbench.dbt.process"  # the child's module, in its command line
RELEASE_LINK = "release-links"  # in the database's folder: a link to the folder of links to the release


class DbtFailed(DistressbenchError, RuntimeError):
    """dbt could not parse the project, or its process ended before answering."""


@dataclass(frozen=True)
class NodeResult:
    """What one node of a dbt command did (as in run_results.json)."""

    unique_id: str
    name: str
    resource_type: str
    status: str  # success, error, skipped, pass, fail, warn
    message: str
    compiled_code: str | None = None  # what `dbt compile` made of it (other commands: None)

    @property
    def failed(self) -> bool:
        return self.status in ("error", "fail", "runtime error")


@dataclass(frozen=True)
class DbtOutcome:
    """What one dbt command did: whether it succeeded, each node, and dbt's exception."""

    success: bool
    nodes: tuple[NodeResult, ...]
    exception: str | None

    def failures(self) -> list[NodeResult]:
        return [node for node in self.nodes if node.failed]


class DbtProcess:
    """The dbt child process of one build or gate."""

    def __init__(self, child: child_process.Child, log_dir: Path, parse: Path, saved: Path) -> None:
        self._child = child
        self.log_dir = log_dir
        self._parse = parse  # the parse dbt saves in its target folder
        self._saved = saved  # and where the next new target folder finds it
        self._parsed = False  # the parse's answer is read before the first command's

    @classmethod
    def start(
        cls,
        *,
        project: Path,
        database: Path,
        release_links: Path,
        log_dir: Path,
        target_dir: Path,
        threads: int,
        memory_limit: str,
    ) -> DbtProcess:
        """Start dbt on the project in `project`, building into `database` (the profile's
        path), reading the release through the folder of links `release_links`, with
        `threads` threads and DuckDB's `memory_limit`."""
        log_dir.mkdir(parents=True, exist_ok=True)
        forget_the_parse_of_another_folder(target_dir, project)
        saved = saved_parse(database.name, project)
        if saved.exists() and not (target_dir / PARTIAL_PARSE).exists():
            shutil.copyfile(saved, target_dir / PARTIAL_PARSE)
        point_release_link(database, release_links)
        env = {
            **os.environ,
            "DISTRESSBENCH_RELEASE": RELEASE_LINK,  # in the child's folder (cwd)
            "DISTRESSBENCH_MEMORY_LIMIT": memory_limit,
            "DISTRESSBENCH_BUILD_DB": database.name,  # in the child's folder (cwd)
            "DISTRESSBENCH_THREADS": str(threads),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "DBT_USE_COLORS": "false",
            "DBT_TARGET_PATH": str(target_dir),
            "DBT_LOG_PATH": str(log_dir / "logs"),
        }
        with (log_dir / CONSOLE_LOG).open("w", encoding="utf-8") as console:
            child = child_process.Child.start(MODULE, [str(project)], cwd=database.parent, env=env, output=console)
        (log_dir / PID_FILE).write_text(str(child.pid), encoding="utf-8")
        return cls(child, log_dir, target_dir / PARTIAL_PARSE, saved)

    def invoke(self, arguments: list[str]) -> DbtOutcome:
        """Run `dbt <arguments>` (the project's folders are added) and say what it did."""
        self.send(arguments)
        return self.receive()

    def send(self, arguments: list[str]) -> None:
        """Have dbt start `dbt <arguments>` (once it has parsed the project); `receive` waits
        for what it did, so the caller can work meanwhile."""
        if not self._child.running():
            self._check_parsed()  # a failed parse ends the process: say so
            raise DbtFailed(f"dbt's process has ended; {self._console_tail()}")
        self._child.send(arguments)

    def receive(self) -> DbtOutcome:
        """What the command `send` started did."""
        self._check_parsed()
        return self._answer()

    def _check_parsed(self) -> None:
        """Read the parse's answer (once); DbtFailed if dbt could not parse the project."""
        if self._parsed:
            return
        parsed = self._answer()
        if not parsed.success:
            raise DbtFailed(f"dbt could not parse the project: {parsed.exception}; {self._console_tail()}")
        self._parsed = True
        save_parse(self._parse, self._saved)

    def stop(self) -> None:
        """End the process (a no-op once it has ended) and wait for it."""
        self._child.stop()
        (self.log_dir / PID_FILE).unlink(missing_ok=True)

    def _answer(self) -> DbtOutcome:
        answer = self._child.receive()
        if answer is None:
            code = self._child.exit_code()
            raise DbtFailed(f"dbt's process ended with exit code {code}; {self._console_tail()}")
        return DbtOutcome(answer["success"], tuple(NodeResult(**node) for node in answer["nodes"]), answer["exception"])

    def _console_tail(self) -> str:
        console = self.log_dir / CONSOLE_LOG
        text = console.read_text(encoding="utf-8", errors="replace") if console.exists() else ""
        return f"dbt's output ({console}) ends:\n{text[-2000:]}"


def point_release_link(database: Path, release_links: Path) -> None:
    """Make the link RELEASE_LINK beside `database` (where the models' SQL looks for the
    release) point at the folder of links `release_links`."""
    link = database.parent / RELEASE_LINK
    if link != release_links:
        link.unlink(missing_ok=True)
        link.symlink_to(release_links)


def end_leftover(log_dir: Path) -> None:
    """End the dbt process an earlier build left in `log_dir` if it still runs (its parent was
    killed before it could end it). Called under the build lock, before the folder is cleared."""
    try:
        pid = int((log_dir / PID_FILE).read_text(encoding="utf-8"))
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return
    if MODULE.encode() not in command:
        return  # the pid has been reused by another program
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + child_process.STOP_TIMEOUT_S
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if Path(f"/proc/{pid}").exists():
        os.kill(pid, signal.SIGKILL)


def forget_the_parse_of_another_folder(target_dir: Path, project: Path) -> None:
    """Remove dbt's saved parse from `target_dir` unless the project folder `project` saved it.

    The saved parse holds absolute paths (each seed's CSV file), and dbt reuses it after the
    project has moved: a warehouse built from the project's old folder would send dbt to the
    old folder's seeds, and the build would fail. A parse saved from another folder, or
    before the marker existed, is dropped, and dbt parses the project in full once."""
    target_dir.mkdir(parents=True, exist_ok=True)
    marker = target_dir / PROJECT_MARKER
    folder = str(project)
    try:
        saved_here = marker.read_text(encoding="utf-8") == folder
    except OSError:
        saved_here = False
    if not saved_here:
        (target_dir / PARTIAL_PARSE).unlink(missing_ok=True)
        marker.write_text(folder, encoding="utf-8")


def saved_parse(database_name: str, project: Path) -> Path:
    """Where the checkout `project` keeps dbt's latest parse for a profile naming `database_name`."""
    return temporary_folder(project, "parse") / f"{database_name}.{PARTIAL_PARSE}"


def save_parse(parse: Path, saved: Path) -> None:
    """Keep a copy of `parse` at `saved`, replaced whole (builds run side by side)."""
    if not parse.exists():
        return
    saved.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=saved.parent, prefix=".", delete=False) as copy:
        shutil.copyfile(parse, copy.name)
    os.replace(copy.name, saved)


def _outcome(result: Any, *, compiled: bool = False) -> dict[str, Any]:
    """A dbtRunnerResult as the JSON answer the parent reads (`compiled`: with each node's
    compiled code)."""
    nodes = []
    for node in getattr(result.result, "results", None) or []:
        nodes.append(
            {
                "unique_id": node.node.unique_id,
                "name": node.node.name,
                "resource_type": str(node.node.resource_type),
                "status": str(node.status),
                "message": str(node.message or ""),
                "compiled_code": getattr(node.node, "compiled_code", None) if compiled else None,
            }
        )
    exception = None if result.exception is None else f"{type(result.exception).__name__}: {result.exception}"
    return {"success": bool(result.success), "nodes": nodes, "exception": exception}


def main(parent: int, answers_fd: int, project: str) -> int:
    """In the child: parse the project, answer, then run each command ordered and answer."""
    child_process.end_with_parent(parent)
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    from dbt.cli.main import dbtRunner

    answers = child_process.Answers(answers_fd)
    flags = ["--profiles-dir", project, "--project-dir", project]
    parsed = dbtRunner().invoke(["parse", *flags])
    answers.answer(_outcome(parsed))
    if not parsed.success:
        return 1
    # dbt compiles into the manifest it is given (marking the ephemeral models' SQL as inlined
    # where read), so a parse serves one command: the first runs on this one, each later one
    # on its own (dbt parses again, partially, from the parse it saved)
    manifest = parsed.result
    for arguments in answers.orders():
        result = dbtRunner(manifest=manifest).invoke([*arguments, *flags])
        manifest = None
        DuckDBConnectionManager.close_all_connections()  # the database file is free between commands
        answers.answer(_outcome(result, compiled=arguments[0] == "compile"))
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]))
