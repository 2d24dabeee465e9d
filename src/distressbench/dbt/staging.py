"""The gate's staging run: the release's staging models built into a DuckDB file, for the
gate's value checks (in a release build, the unpublished file dbt goes on building): their
SQL as dbt compiled it, run by DuckDB (`SqlStaging`, dbt.compiled), so no gate waits for a
dbt process.

The models read the release through a folder of links (one per file that passed the gate's file
and schema checks), so no path of the user's enters SQL, a profile or a glob: the folder is
ours, under the system's temporary folder, named by a digest of what it serves (one per
warehouse, so builds of two warehouses side by side keep apart); dbt itself sees it by a
link of a fixed name beside the database (dbt.process.RELEASE_LINK).
"""

from __future__ import annotations

import fcntl
import re
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from distressbench.dbt.compiled import CATALOG, CompiledModel, dependency_order
from distressbench.dbt.process import RELEASE_LINK, point_release_link
from distressbench.dbt.relations import staging_model
from distressbench.release import contract
from distressbench.settings import temporary_folder

# the release tables the judge labels' aggregate joins the labels with: without them it is not run
JUDGE_LABELS_JOIN = ("responses", "criteria")
UNSAFE_CHARACTERS = frozenset("*?[]{}'\"\\")


@dataclass(frozen=True)
class StagingResult:
    """What the staging step built: the database holding the staging tables, the folder of
    links to the release files it read, the tables that could not be read (table -> error),
    and those not read because a table they are matched with could not be (their checks are
    reported as skipped)."""

    database: Path
    links: Path
    unreadable: dict[str, str]
    not_read: frozenset[str] = frozenset()


# (release folder, tables that passed the schema checks, the manifest if it passed its checks)
# -> a function that waits for what was built (the staging runs while the gate imports Great
# Expectations)
Staging = Callable[[Path, dict[str, Path], Path | None], Callable[[], StagingResult]]


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


def _readable(tables: dict[str, Path], manifest: Path | None) -> tuple[list[str], set[str]]:
    """The tables to stage (and the manifest, if it passed its checks), and those not read
    because a table they are matched with failed the file checks."""
    readable = [*tables, *(["manifest"] if manifest is not None else [])]
    not_read: set[str] = set()
    if "judge_labels" in tables and not all(table in tables for table in JUDGE_LABELS_JOIN):
        readable.remove("judge_labels")  # the replies or criteria failed the file checks
        not_read.add("judge_labels")
    return readable, not_read


def _message(message: str, links: Path, release_dir: Path) -> str:
    """A staging error on one line, naming the user's release folder, not the links."""
    pattern = "|".join(re.escape(name) for name in (str(links), RELEASE_LINK))
    return " ".join(re.sub(pattern, lambda _: str(release_dir), message).split())


class SqlStaging:
    """The gate's staging step without dbt: the staging models' compiled SQL (dbt.compiled),
    run by DuckDB into `database`, attached under the catalog name the SQL was compiled for
    (`catalog`). Calling it starts the run on a thread (DuckDB works while the gate imports
    Great Expectations); the function it returns waits for what was built. `models` is
    called once, when a release first needs staging (a release refused by its files or
    schemas compiles nothing)."""

    def __init__(
        self,
        models: Callable[[], Mapping[str, CompiledModel]],
        links: Path,
        database: Path,
        memory_limit: str,
        catalog: str = CATALOG,
    ) -> None:
        self._models = models
        self._links = links
        self._database = database
        self._memory_limit = memory_limit
        self._catalog = catalog

    def __call__(
        self, release_dir: Path, tables: dict[str, Path], manifest: Path | None
    ) -> Callable[[], StagingResult]:
        link_release(self._links, tables, manifest)
        point_release_link(self._database, self._links)
        readable, not_read = _readable(tables, manifest)
        models = self._models()
        running = ThreadPoolExecutor(max_workers=1)
        run = running.submit(self._run, models, [staging_model(table) for table in readable])
        running.shutdown(wait=False)

        def built() -> StagingResult:
            failed, skipped = run.result()
            unreadable: dict[str, str] = {}
            for table in readable:
                model = staging_model(table)
                if model in skipped:
                    not_read.add(table)
                elif model in failed:
                    unreadable[table] = _message(failed[model], self._links, release_dir)
            return StagingResult(self._database, self._links, unreadable, frozenset(not_read))

        return built

    def _run(self, models: Mapping[str, CompiledModel], names: list[str]) -> tuple[dict[str, str], set[str]]:
        """Build `names` in dependency order; the models that failed (model -> its error),
        and those not run because a model they read failed or was not run."""
        failed: dict[str, str] = {}
        skipped: set[str] = set()
        config = {
            "file_search_path": str(self._database.parent),  # the SQL reads the release link relative to it
            "memory_limit": self._memory_limit,
            "temp_directory": f"{self._database}.tmp",
            "preserve_insertion_order": False,
        }
        path = str(self._database).replace("'", "''")
        catalog = self._catalog.replace('"', '""')
        with duckdb.connect(config=config) as connection:
            connection.execute(f"attach '{path}' as \"{catalog}\"")
            connection.execute(f'use "{catalog}"')
            for name in dependency_order(models, names):
                model = models[name]
                if any(parent in failed or parent in skipped for parent in model.parents):
                    skipped.add(name)
                    continue
                try:
                    connection.execute(f"create schema if not exists {model.schema}")
                    for statement in model.statements():
                        connection.execute(statement)
                except duckdb.Error as error:
                    failed[name] = str(error)
        return failed, skipped


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
