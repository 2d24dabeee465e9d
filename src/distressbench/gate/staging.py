"""dbt runs the release's staging models for the gate, and the standalone `distressbench gate`.

dbt reads the release through a folder of links (one per file that passed the gate's file
and schema checks), so no path of the user's enters SQL, a profile or a glob: the folder is
ours, under the system's temporary folder, named by a digest of what it serves (one per
warehouse, so builds of two warehouses side by side keep apart); dbt itself sees it by a
link of a fixed name (runner.dbt_process).
"""

from __future__ import annotations

import fcntl
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from distressbench.gate.results import GateReport
from distressbench.gate.run import StagingResult, run_gate
from distressbench.release import contract
from distressbench.release.release import Release, load_release
from distressbench.runner.dbt_process import DbtProcess
from distressbench.settings import PROJECT_ROOT, Settings, temporary_folder

# The staging models the gate checks, each with the release tables it reads; the aggregate of
# the judge labels is the one pass over them (its view stg_release__judge_labels is ephemeral).
JUDGE_LABELS_AGGREGATE = "int_judge_labels_aggregated"
# the release tables the aggregate joins the labels with: without them it is not run
JUDGE_LABELS_JOIN = ("responses", "criteria")
UNSAFE_CHARACTERS = frozenset("*?[]{}'\"\\")


def staging_model(table: str) -> str:
    return JUDGE_LABELS_AGGREGATE if table == "judge_labels" else f"stg_release__{table}"


def staging_models(present: Iterable[str]) -> list[str]:
    """The models the gate's staging run builds for a release whose files are `present`: the
    manifest's and each present table's (the judge labels' aggregate for the labels). The
    staging model of an absent optional table is not among them: the build makes it, empty."""
    return [staging_model(table) for table in ("manifest", *present)]


def link_folder(key: Path) -> Path:
    """The link folder for `key` (a warehouse, or the gate's own workspace); its path holds
    no quote, glob or format character, or it is refused by name."""
    folder = temporary_folder(key) / "release"
    unsafe = sorted(UNSAFE_CHARACTERS.intersection(str(folder)))
    if unsafe:
        tmp = folder.parent.parent
        raise ValueError(f"the temporary folder {tmp} holds {' '.join(unsafe)}; set TMPDIR to a plain path")
    return folder


def link_release(folder: Path, tables: dict[str, Path], manifest: Path | None) -> None:
    """Make `folder` hold exactly one link per release file in `tables` (and the manifest)."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    files = {contract.file_name(table): path for table, path in tables.items()}
    if manifest is not None:
        files[contract.MANIFEST] = manifest
    for name, path in files.items():
        (folder / name).symlink_to(path.resolve())


class DbtStaging:
    """The gate's staging step, on a running dbt process: `dbt run` of the staging models
    whose tables passed the file checks, into the database dbt's profile names. Calling it
    starts the run; the function it returns waits for what was built."""

    def __init__(self, dbt: DbtProcess, links: Path, database: Path) -> None:
        self._dbt = dbt
        self._links = links
        self._database = database

    def __call__(
        self, release_dir: Path, tables: dict[str, Path], manifest: Path | None
    ) -> Callable[[], StagingResult]:
        link_release(self._links, tables, manifest)
        readable = [*tables, *(["manifest"] if manifest is not None else [])]
        not_read: set[str] = set()
        if "judge_labels" in tables and not all(table in tables for table in JUDGE_LABELS_JOIN):
            readable.remove("judge_labels")  # the replies or criteria failed the file checks
            not_read.add("judge_labels")
        selected = [staging_model(table) for table in readable]
        if not selected:  # nothing passed the file checks: nothing to read
            return lambda: StagingResult(self._database, self._links, {}, frozenset(not_read))
        self._dbt.send(["run", "--select", *selected])
        return lambda: self._built(release_dir, readable, not_read)

    def _built(self, release_dir: Path, readable: list[str], not_read: set[str]) -> StagingResult:
        outcome = self._dbt.receive()
        by_model = {node.name: node for node in outcome.nodes}
        unreadable: dict[str, str] = {}
        for table in readable:
            node = by_model.get(staging_model(table))
            if node is None or node.status == "success":
                continue
            if node.status == "skipped":  # the judge labels, when the replies or criteria could not be read
                not_read.add(table)
            else:
                unreadable[table] = " ".join(node.message.replace(str(self._links), str(release_dir)).split())
        if outcome.exception is not None and not outcome.nodes:
            raise RuntimeError(f"dbt could not run the staging models: {outcome.exception}")
        return StagingResult(self._database, self._links, unreadable, frozenset(not_read))


@contextmanager
def gate_workspace(project_root: Path) -> Iterator[Path]:
    """The standalone gate's folder for the project at `project_root` (its database and dbt's
    target, kept between gates so dbt parses partially), one gate at a time; another checkout
    has a folder of its own."""
    folder = temporary_folder(project_root, "gate")
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield folder


def gate(release: Release | Path, report_path: Path | None, settings: Settings, *, echo: bool = True) -> GateReport:
    """`distressbench gate`: the gate, with dbt running the staging models into a scratch
    database; dbt starts only when the value checks need it (the files and schemas passed)."""
    loaded = release if isinstance(release, Release) else load_release(Path(release))
    with gate_workspace(PROJECT_ROOT) as folder:
        database = folder / "gate.duckdb"
        for suffix in ("", ".wal"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        links = link_folder(folder)
        started: list[DbtProcess] = []

        def staging(release_dir: Path, tables: dict[str, Path], manifest: Path | None) -> Callable[[], StagingResult]:
            dbt = DbtProcess.start(
                database=database,
                release_links=links,
                log_dir=folder / "dbt",
                target_dir=folder / "target",
                threads=settings.dbt_threads or 1,
                memory_limit=settings.memory_limit,
            )
            started.append(dbt)
            return DbtStaging(dbt, links, database)(release_dir, tables, manifest)

        try:
            return run_gate(loaded, report_path, echo=echo, memory_limit=settings.memory_limit, staging=staging)
        finally:
            for dbt in started:
                dbt.stop()
            for suffix in ("", ".wal"):
                Path(f"{database}{suffix}").unlink(missing_ok=True)
