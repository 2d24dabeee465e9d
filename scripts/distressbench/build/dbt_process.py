"""dbt for the release build, in a process of its own that starts before the gate.

dbt's import and the parse of the project take ~2.5 s at 1x, more than the gate's file
checks and staging; they depend only on the project, not on the release. So the build starts
this process first (`DbtProcess.start`): it imports dbt and parses the project while the gate
runs in the build's process, then waits. `DbtProcess.build` tells it to `dbt build` the rest
of the project on the staging layer the gate built; `DbtProcess.stop` (a refused release,
nothing to publish, any failure) lets it end without building. It waits for its order on its
stdin, so if the build's process dies before giving one, it ends too. (If the build's
process is killed while dbt builds, dbt finishes into the unpublished file, which the next
build clears, as the `dbt` subprocess this replaces did.)

Run as `python -m distressbench.build.dbt_process PROJECT_DIR` by `DbtProcess` only.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, NoReturn

from distressbench import settings
from distressbench.build.process_end import end_without_teardown

if TYPE_CHECKING:
    from dbt.artifacts.schemas.run import RunExecutionResult
    from dbt.contracts.graph.manifest import Manifest
    from dbt.contracts.graph.nodes import GenericTestNode
    from dbt_common.events.base_types import EventMsg

# What the release build leaves out of `dbt build` (plain `dbt build` runs everything): the
# unit tests, and the nodes tagged LEFT_OUT_TAGS. `--indirect-selection empty`: leaving out a
# model the gate built does not leave out the tests that read it (a project's own singular
# tests still run); the tests the gate guarantees are left out by their tag. The generic data
# tests it does run are not nodes either: they run in one query at the end (`one_query_tests`).
LEFT_OUT_TAGS = ("built_by_gate", "gate_guaranteed", "implied_upstream", "release_invariant")
DBT_RELEASE_EXCLUDES = ("--exclude-resource-type", "unit_test", "--indirect-selection", "empty")
# What dbt sees as the release folder in a release build: nothing there. The gate has built
# the staging layer into the file; dbt reads only that (and a constant path keeps dbt's
# partial parsing across releases).
NO_RELEASE = "release-is-read-by-the-gate"
BUILD_ORDER = "build"
CONSOLE_LOG = "console.log"  # dbt's warnings and errors, in the log folder
# the events printed beside dbt's warnings and errors: the end-of-run summary, which opens
# the list of what failed, and where a failed node's compiled SQL is
PRINTED_EVENTS = frozenset({"EndOfRunSummary", "SQLCompiledPath"})
ONE_QUERY_TESTS_VAR = "tests_in_one_query"  # the var that hands run_tests_in_one_query its tests
RUN_RESULTS = "run_results.json"  # dbt's record of the build, in its target folder
PARTIAL_PARSE = "partial_parse.msgpack"  # dbt's saved parse, in its target folder
PROJECT_MARKER = "project-folder.txt"  # the project folder whose parse the target folder saved
STOP_TIMEOUT_S = 60


class DbtFailed(RuntimeError):
    """dbt could not parse the project, or a node of the build failed."""


class DbtProcess:
    """The dbt process of one release build, building into `database`."""

    def __init__(self, process: subprocess.Popen[bytes], console: Path) -> None:
        self._process = process
        self._console = console

    @classmethod
    def start(cls, database: Path, *, log_dir: Path, target_dir: Path, threads: int) -> DbtProcess:
        """Start dbt's import and parse; `target_dir` is dbt's target folder (kept between
        builds, dbt parses partially); dbt runs `threads` nodes side by side unless
        DISTRESSBENCH_THREADS says otherwise."""
        log_dir.mkdir(parents=True, exist_ok=True)
        forget_the_parse_of_another_folder(target_dir)
        env = {
            **os.environ,
            "DISTRESSBENCH_RELEASE": str(log_dir / NO_RELEASE),
            "DISTRESSBENCH_MEMORY_LIMIT": settings.memory_limit(),  # the gate's limit, for dbt's DuckDB too
            "DISTRESSBENCH_BUILD_DB": str(database),
            "DISTRESSBENCH_THREADS": os.environ.get("DISTRESSBENCH_THREADS", str(threads)),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "DBT_USE_COLORS": "false",
            "DBT_TARGET_PATH": str(target_dir),
            "DBT_LOG_PATH": str(log_dir / "logs"),
            # dbt's loggers format a line for every event, statements included, before they
            # look at its level: ~0.5 s of a 1x build's dbt stage. The console is off (the
            # process prints dbt's warnings and errors itself, `print_problems`), and so is
            # the file log unless DBT_LOG_LEVEL_FILE asks for it (info, or debug for every
            # statement).
            "DBT_LOG_LEVEL": "none",
            "DBT_LOG_LEVEL_FILE": os.environ.get("DBT_LOG_LEVEL_FILE", "none"),
        }
        console = log_dir / CONSOLE_LOG
        with console.open("wb") as sink:
            process = subprocess.Popen(
                [sys.executable, "-m", "distressbench.build.dbt_process", str(settings.PROJECT_ROOT)],
                cwd=settings.PROJECT_ROOT, env=env, stdin=subprocess.PIPE, stdout=sink, stderr=subprocess.STDOUT,
            )
        return cls(process, console)

    def build(self) -> None:
        """`dbt build` of the release (what DBT_RELEASE_EXCLUDES leaves in); raises DbtFailed
        with dbt's list of what failed."""
        self._order(BUILD_ORDER)
        code = self._process.wait()
        if code != 0:
            printed = self._console.read_text(encoding="utf-8", errors="replace")
            _, summary, errors = printed.partition("Completed with")  # dbt's list of what failed
            detail = (summary + errors if summary else printed)[-3000:]
            raise DbtFailed(
                f"dbt exited {code}:\n{detail}\ndbt's warnings and errors: {self._console}; "
                f"DBT_LOG_LEVEL_FILE=debug writes its full log into {self._console.parent / 'logs'}"
            )

    def stop(self) -> None:
        """End the process without building (a no-op once it has ended); waits for it, so
        that it never writes dbt's target folder after the build has returned."""
        if self._process.poll() is None:
            self._order("")
            try:
                self._process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def _order(self, order: str) -> None:
        stdin: IO[bytes] | None = self._process.stdin
        if stdin is None or stdin.closed:
            return
        try:
            stdin.write(f"{order}\n".encode())
            stdin.close()
        except BrokenPipeError:  # the process has already ended (dbt could not parse): build() reports it
            pass


def forget_the_parse_of_another_folder(target_dir: Path) -> None:
    """Remove dbt's saved parse from `target_dir` unless this project folder saved it.

    The saved parse holds absolute paths (each seed's CSV file), and dbt reuses it after the
    project has moved: a warehouse built from the project's old folder would send dbt to the
    old folder's seeds, and the build would fail. A parse saved from another folder, or
    before the marker existed, is dropped, and dbt parses the project in full once."""
    target_dir.mkdir(parents=True, exist_ok=True)
    marker = target_dir / PROJECT_MARKER
    folder = str(settings.PROJECT_ROOT)
    try:
        saved_here = marker.read_text(encoding="utf-8") == folder
    except OSError:
        saved_here = False
    if not saved_here:
        (target_dir / PARTIAL_PARSE).unlink(missing_ok=True)
        marker.write_text(folder, encoding="utf-8")


def main(project: str) -> int:
    """In the dbt process: parse the project in folder `project`, wait for the order, build.

    What lives until the process ends (dbt's modules, then the parsed project and the
    bootstrap's modules: ~190,000 objects at 1x) is frozen out of Python's cyclic garbage
    collector (gc.freeze), which walked all of it in every full collection, holding the GIL:
    at 1x 0.32-0.35 s of collections in the parse and 0.95-1.10 s in the build, against
    0.13 s and 0.52-0.55 s."""
    from dbt.cli.main import dbtRunner

    gc.freeze()
    project_flags = ["--profiles-dir", project, "--project-dir", project]
    parsed = dbtRunner(callbacks=[print_problems]).invoke(["parse", *project_flags])
    if not parsed.success:
        print(f"Completed with an error: dbt could not parse the project: {parsed.exception}", flush=True)
        return 1
    # the bootstrap models' imports (numpy, pandas), also paid while the gate runs
    import distressbench.stats.bootstrap
    import distressbench.stats.calibration  # noqa: F401

    batched = one_query_tests(parsed.result)
    excluded = [*(f"tag:{tag}" for tag in LEFT_OUT_TAGS), *(node.name for node in batched)]
    test_ids = json.dumps({ONE_QUERY_TESTS_VAR: [node.unique_id for node in batched]})
    gc.freeze()

    if sys.stdin.readline().strip() != BUILD_ORDER:
        return 0
    # the parse has written manifest.json; dbt would write it again after the build (~0.5 s at
    # 1x, on the build's critical path), so the build writes no JSON and its run results are
    # written here, where dbt would put them
    built = dbtRunner(manifest=parsed.result, callbacks=[print_problems]).invoke(
        ["build", "--no-write-json", *DBT_RELEASE_EXCLUDES, "--exclude", *excluded, "--vars", test_ids, *project_flags]
    )
    if built.result is not None:
        write_run_results(built.result, batched if built.success else [])
    _end(0 if built.success else 1)


def one_query_tests(manifest: Manifest) -> list[GenericTestNode]:
    """The generic data tests the release build runs in one query, at the end of the run
    (the on-run-end hook run_tests_in_one_query), instead of as nodes (~40 ms of dbt's Python
    each): those not tagged LEFT_OUT_TAGS whose outcome is a plain count of failing rows (an
    error when there is any, nothing stored), of a generic test of the project or of dbt on
    a model or seed, with arguments and `where` as written (no Jinja). Any other test stays
    a node."""
    from dbt.contracts.graph import nodes

    return sorted(
        (
            node
            for node in manifest.nodes.values()
            if isinstance(node, nodes.GenericTestNode)
            and node.test_metadata.namespace is None  # the project's or dbt's own generic test
            and node.attached_node is not None  # on a model or seed, not on a source
            and "{{" not in json.dumps([arguments_of(node), node.config.where])  # nothing to render
            and not set(node.tags) & set(LEFT_OUT_TAGS)
            and str(node.config.severity).lower() == "error"
            and (node.config.fail_calc, node.config.warn_if, node.config.error_if) == ("count(*)", "!= 0", "!= 0")
            and node.config.limit is None
            and not node.config.store_failures
            and node.config.store_failures_as is None
        ),
        key=lambda node: node.unique_id,
    )


def arguments_of(node: GenericTestNode) -> dict[str, object]:
    """A generic test's arguments besides its model."""
    return {name: value for name, value in node.test_metadata.kwargs.items() if name != "model"}


def write_run_results(result: RunExecutionResult, batched: list[GenericTestNode]) -> None:
    """dbt's run_results.json of the build (dbt writes none: `--no-write-json`), where dbt
    would put it, with a passing result for each test run in one query (given only when the
    build succeeded, so when each of them passed)."""
    path = Path(os.environ["DBT_TARGET_PATH"]) / RUN_RESULTS
    result.write(str(path))
    if batched:
        written = json.loads(path.read_text(encoding="utf-8"))
        written["results"].extend(
            {
                "unique_id": node.unique_id,
                "status": "pass",
                "timing": [],
                "thread_id": "on-run-end",
                "execution_time": 0.0,
                "adapter_response": {},
                "message": "passed in one query with the release build's other generic tests (run_tests_in_one_query)",
                "failures": 0,
                "compiled": None,
                "compiled_code": None,
                "relation_name": None,
                "batch_results": None,
            }
            for node in batched
        )
        path.write_text(json.dumps(written), encoding="utf-8")


def print_problems(event: EventMsg) -> None:
    """Print one of dbt's events if it is a warning or an error, or in PRINTED_EVENTS (dbt's
    own console log is off: DbtProcess.start)."""
    if event.info.level in ("warn", "error") or event.info.name in PRINTED_EVENTS:
        print(event.info.msg, flush=True)


def _end(code: int) -> NoReturn:
    """End the dbt process once dbt has built: close the database dbt-duckdb keeps open until
    the interpreter ends (closing checkpoints it), flush the logs, and skip the teardown of
    dbt's modules (~0.4 s at 1x, on the build's critical path)."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager

    DuckDBConnectionManager.close_all_connections()
    gc.collect()  # the last reference to the database goes, and DuckDB closes the file
    end_without_teardown(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
