"""`distressbench build`: write, audit, publish. docs/building.md describes the stages.

1. prepare -- take the build lock, end a dbt process a killed build left behind, clear what
   an earlier build left behind;
2. gate -- the file checks (manifest, sha256, Arrow schemas); dbt runs the staging models
   into the unpublished file `building.duckdb` (distressbench.gate.staging), and the
   value checks (Great Expectations) run on what dbt built there;
3. publish check -- a release id already published with other content needs --force;
4. history -- the results of the releases published before are carried into the file;
5. dbt build -- `dbt build` of everything else, every data test a node (the staging models'
   tests included), in the same dbt process, on the rows the gate checked;
6. verify -- the manifest is the one read before the gate and every file still has its
   sha256: what is published is what was checked;
7. audit -- row counts reconcile with the manifest, the publication record is written and
   the file reopens read-only;
8. publish -- one atomic rename of a symlink.

The published warehouse path is a symlink to one immutable, fully built database file in
`<name>.builds/` (keyed by the full file name, so `w.duckdb` and `w.db` in one folder never
share builds). A build works in the folder `<name>.builds/work-current/` (gate report,
dbt's logs, the new database `building.duckdb`, renamed to `<release>-<stamp>.duckdb` after
the audit) and only a rename of a fresh symlink over the published path publishes it, so
analysts with the old file open keep reading it, new sessions see the new release, and a
build that fails or is killed at any moment leaves the published warehouse exactly as it was.
The next build (under the lock) ends a dbt process left running and clears what a failed or
killed build left behind.

What is published is read from the published file itself (its table
`meta.published_releases` holds every publication up to and including its own), so it
can never disagree with the symlink; `<name>.published_releases.jsonl` is a convenience
copy, rewritten from that table by every build.

dbt's target folder `<name>.builds/dbt-target/` is kept between builds, so dbt parses the
project partially. The release build leaves out dbt's unit tests: they test the SQL on fixed
inputs, not the release's data, so no release can change their outcome; plain `dbt build`
and CI run them.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from distressbench.gate.staging import DbtStaging, link_folder, staging_models
from distressbench.publish.history import carry_forward
from distressbench.release import contract
from distressbench.release.manifest import manifest_sha256, sha256_of
from distressbench.release.release import Release, load_release
from distressbench.runner.dbt_process import DbtFailed, DbtOutcome, DbtProcess, end_leftover
from distressbench.settings import Settings

KEEP_PREVIOUS_BUILDS = 1
WORK_FOLDER = "work-current"  # fixed, so the profile dbt sees is the same for every build
BUILDING_FILE = "building.duckdb"
DBT_TARGET = "dbt-target"  # dbt's target folder, kept between builds for partial parsing
# dbt's threads in a release build (DISTRESSBENCH_THREADS overrides): two below this many
# judge labels, where they overlap dbt's per-node overhead; one from it on, where a second
# thread would run a big query beside the bootstrap's frames and raise the peak memory
TWO_DBT_THREADS_BELOW_LABELS = 20_000_000
LEGACY_PREFIX = "legacy-"  # a plain database file found at the published path, kept as is

Record = dict[str, Any]


class StageFailed(RuntimeError):
    """A build stage failed; the published warehouse was not touched."""

    def __init__(self, stage: str, message: str) -> None:
        super().__init__(f"build failed at stage '{stage}': {message}")
        self.stage = stage


@dataclass(frozen=True)
class WarehouseLayout:
    """Where a published warehouse keeps its builds, log and lock: beside it, named after
    its full file name."""

    published: Path

    @property
    def builds_dir(self) -> Path:
        return self.published.parent / f"{self.published.name}.builds"

    @property
    def log(self) -> Path:
        return self.published.parent / f"{self.published.name}.published_releases.jsonl"

    @property
    def lock(self) -> Path:
        return self.published.parent / f"{self.published.name}.lock"

    @property
    def legacy_builds_dir(self) -> Path:
        """Where builds lived when the folders were named after the stem alone."""
        return self.published.parent / f"{self.published.stem}.builds"

    def current_build(self) -> Path | None:
        """The file the published path points at (or is), if it exists."""
        return self.published.resolve() if self.published.exists() else None

    def is_own_link(self) -> bool:
        """The published path is a symlink into this warehouse's builds folder."""
        if not self.published.is_symlink():
            return False
        target = self.published.parent / os.readlink(self.published)
        folders = {self.builds_dir.resolve(), self.legacy_builds_dir.resolve()}
        return target.parent.resolve() in folders


def _say(message: str) -> None:
    print(message, flush=True)


@contextmanager
def _stage(name: str) -> Iterator[None]:
    started = time.perf_counter()
    _say(f"[{name}] ...")
    try:
        yield
    except StageFailed:
        raise
    except Exception as error:  # any surprise inside a stage is that stage's failure
        raise StageFailed(name, f"{type(error).__name__}: {error}") from error
    _say(f"[{name}] done in {time.perf_counter() - started:.1f} s")


@contextmanager
def build_lock(lock: Path, built: Path) -> Iterator[None]:
    """Serialise the builds of one warehouse (`built`), through the file `lock`. The kernel
    drops the lock when its holder dies, so a killed build never blocks the next one."""
    with lock.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _say(f"waiting for another build of {built} to finish ...")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_log(layout: WarehouseLayout) -> list[Record]:
    """The jsonl convenience copy of the publication history."""
    if not layout.log.exists():
        return []
    lines = layout.log.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _write_log(layout: WarehouseLayout, history: list[Record]) -> None:
    temporary = layout.builds_dir / f"{layout.log.name}.tmp"
    temporary.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in history), encoding="utf-8")
    os.replace(temporary, layout.log)


def published_history(layout: WarehouseLayout) -> list[Record]:
    """Every publication so far, from `meta.published_releases` of the published file, and
    the jsonl log brought in line with it (a crash right after a publish can lose the log
    write). Falls back to the log when the file cannot be opened read-only (someone holds
    it open for writing)."""
    current = layout.current_build()
    if current is None:
        return []
    try:
        with duckdb.connect(str(current), read_only=True) as connection:
            cursor = connection.execute("select * from meta.published_releases order by rowid")
            names = [column[0] for column in cursor.description]
            rows = cursor.fetchall()
    except duckdb.CatalogException:  # a database file from before publication records
        return []
    except duckdb.Error as error:
        _say(f"warning: cannot read the publication record of {current} ({error}); using {layout.log}")
        return read_log(layout)
    history = [
        dict(zip(names, row, strict=False)) | {"gate_report": json.loads(row[names.index("gate_report")])}
        for row in rows
    ]
    if read_log(layout) != history:
        _write_log(layout, history)
    return history


def remove_stale_files(layout: WarehouseLayout, history: list[Record]) -> None:
    """Under the build lock: remove everything in the builds folder but the published file,
    the newest previously published one and legacy files (with their .wal/.tmp companions):
    work folders of finished, failed or killed builds, files never published, old gate
    reports. Readers holding a removed file keep reading it. dbt's target folder stays."""
    current = layout.current_build()
    published = list(dict.fromkeys(str(r["build_file"]) for r in reversed(history)))
    previous = [name for name in published if current is None or name != current.name]
    keep = {*previous[:KEEP_PREVIOUS_BUILDS], *([current.name] if current else []), DBT_TARGET}
    for path in layout.builds_dir.iterdir():
        base = path.name.removesuffix(".wal").removesuffix(".tmp")
        if base in keep or base.startswith(LEGACY_PREFIX):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def dbt_threads(release: Release) -> int:
    """Two dbt threads for a release of fewer than TWO_DBT_THREADS_BELOW_LABELS judge labels
    (by its manifest), else one (also when the manifest cannot be read: the gate will say why)."""
    labels = release.listed_rows("judge_labels")
    return 2 if labels is not None and labels < TWO_DBT_THREADS_BELOW_LABELS else 1


# `dbt build` of what the gate's staging run did not build: every other model and seed, and
# every data test as a node (those of the staging models too); not the unit tests (above)
REST_OF_THE_BUILD = ["--indirect-selection", "empty", "--exclude-resource-type", "unit_test"]


def run_dbt(dbt: DbtProcess, release: Release) -> None:
    """`dbt build` of the rest of the project into the unpublished file, on the staging
    tables the gate checked (and the empty staging table of an absent optional one)."""
    try:
        outcome = dbt.invoke(["build", "--exclude", *staging_models(release.files), *REST_OF_THE_BUILD])
    except DbtFailed as error:
        raise StageFailed("dbt build", str(error)) from error
    if not outcome.success:
        raise StageFailed("dbt build", dbt_failure(outcome, dbt.log_dir))


def dbt_failure(outcome: DbtOutcome, log_dir: Path) -> str:
    """What failed in a dbt command, one line per failed node (dbt's own message)."""
    failures = outcome.failures()
    lines = [f"{node.resource_type} {node.name}: {' '.join(node.message.split())[:500]}" for node in failures]
    if outcome.exception is not None:
        lines.append(outcome.exception[:500])
    return (
        f"dbt failed on {len(failures)} node(s):\n  "
        + "\n  ".join(lines)
        + f"\ndbt's output: {log_dir / 'console.log'}; its log: {log_dir / 'logs'}"
    )


def record_publication(database: Path, history: list[Record]) -> None:
    """Store the publication history, this build's record last, inside the new file."""
    with duckdb.connect(str(database)) as connection:
        connection.execute("create schema if not exists meta")
        connection.execute(
            "create or replace table meta.published_releases ("
            " release_id varchar, manifest_sha256 varchar, published_at varchar,"
            " build_file varchar, release_dir varchar, gate_report json)"
        )
        connection.executemany(
            "insert into meta.published_releases values (?, ?, ?, ?, ?, ?)",
            [
                [
                    r["release_id"],
                    r["manifest_sha256"],
                    r["published_at"],
                    r["build_file"],
                    r["release_dir"],
                    json.dumps(r["gate_report"]),
                ]
                for r in history
            ],
        )


def audit(database: Path, release: Release, release_id: str) -> None:
    """Row counts reconcile with the manifest, the marts carry the release id, the file
    checkpoints and reopens read-only with its publication record."""
    files = (release.manifest or {})["files"]
    problems: list[str] = []
    with duckdb.connect(str(database)) as connection:
        for table in contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES:
            listed = files.get(contract.file_name(table))
            if listed is None:
                continue
            relation, count = (
                ("intermediate.int_judge_labels_aggregated", "coalesce(sum(n_labels), 0)")
                if table == "judge_labels"
                else (f"staging.stg_release__{table}", "count(*)")
            )
            (rows,) = connection.execute(f"select {count} from {relation}").fetchone()
            if rows != listed["rows"]:
                problems.append(f"{relation} counts {rows} rows, the manifest says {listed['rows']}")
        n_tasks = files[contract.file_name("tasks")]["rows"]
        n_models = files[contract.file_name("models")]["rows"]
        (cells,) = connection.execute("select count(*) from marts.cell_scores").fetchone()
        if cells != n_tasks * n_models:
            problems.append(f"marts.cell_scores has {cells} rows, expected {n_tasks} tasks x {n_models} models")
        (labels,) = connection.execute("select coalesce(sum(n_labels), 0) from marts.verdicts").fetchone()
        n_labels = files[contract.file_name("judge_labels")]["rows"]
        if labels != n_labels:
            problems.append(f"marts.verdicts counts {labels} judge labels, the manifest lists {n_labels}")
        ids = [r[0] for r in connection.execute("select distinct release_id from marts.headline_metrics").fetchall()]
        if ids != [release_id]:
            problems.append(f"marts.headline_metrics holds release ids {ids}, expected [{release_id!r}]")
        connection.execute("checkpoint")
    if problems:
        raise StageFailed("audit", "; ".join(problems))
    with duckdb.connect(str(database), read_only=True) as connection:
        (recorded,) = connection.execute(
            "select last(release_id order by rowid) from meta.published_releases"
        ).fetchone()
    if recorded != release_id:
        raise StageFailed("audit", f"meta.published_releases ends with {recorded!r}, expected {release_id!r}")


def verify_release_unchanged(release: Release) -> None:
    """Publish exactly what was checked: the manifest is the one loaded before the gate, and
    every file it lists still has the sha256 it lists (the gate checked the same before it
    read the files into the warehouse). A check, so the files are read again, two at a time."""
    release_dir = release.folder
    if manifest_sha256(release_dir) != release.manifest_sha256:
        raise StageFailed(
            "verify", f"{contract.MANIFEST} changed while the release was being built; nothing was published"
        )
    files = (release.manifest or {})["files"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        digests = dict(zip(files, pool.map(lambda name: sha256_of(release_dir / name), files), strict=True))
    changed = [name for name, entry in files.items() if digests[name] != entry["sha256"].lower()]
    if changed:
        raise StageFailed(
            "verify",
            f"{len(changed)} release file(s) changed after the gate read them: {', '.join(changed)} "
            "(sha256 no longer the manifest's); the build is refused, nothing was published",
        )


def publish(layout: WarehouseLayout, database: Path, scratch: Path) -> None:
    """Point the published path at `database` with one atomic rename. A plain database
    file found at the published path is kept in the builds folder (hard link) first."""
    published = layout.published
    if published.exists() and not published.is_symlink():
        for suffix in ("", ".wal"):
            if Path(f"{published}{suffix}").exists():
                os.link(
                    f"{published}{suffix}", layout.builds_dir / f"{LEGACY_PREFIX}replaced-by-{database.name}{suffix}"
                )
    link = scratch / "published.link"
    link.symlink_to(os.path.relpath(database, published.parent))
    os.replace(link, published)


def print_headline(database: Path) -> None:
    """The headline metrics beside the paper's values (skipped if the file is held for writing)."""
    try:
        with duckdb.connect(str(database), read_only=True) as connection:
            rows = connection.sql(
                "select metric, value, ci_low, ci_high, paper_value from marts.headline_metrics order by display_order"
            ).fetchall()
    except duckdb.Error as error:
        _say(f"(headline metrics not shown: {error})")
        return
    from distressbench.outputs.tables.formatting import INTERVAL_LEVEL

    _say(f"{'metric':<34} {'value':>7} {INTERVAL_LEVEL + ' CI':>17} {'paper':>7} {'diff':>7}")
    for metric, value, low, high, paper in rows:
        interval = f"[{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
        paper_text = f"{paper:.3f}" if paper is not None else ""
        diff = f"{value - paper:+.3f}" if paper is not None and value is not None else ""
        value_text = f"{value:.3f}" if value is not None else "null"
        _say(f"{metric:<34} {value_text:>7} {interval:>17} {paper_text:>7} {diff:>7}")


def _discard_unpublished(building: Path) -> None:
    """Remove the work database if it was not published (renamed away)."""
    for suffix in ("", ".wal"):
        Path(f"{building}{suffix}").unlink(missing_ok=True)


def build_release(
    release_dir: Path, warehouse: Path, settings: Settings | None = None, *, force: bool = False
) -> tuple[Path, bool]:
    """Run every stage (with the default Settings unless given); returns the published
    database file and whether this build published it (False: identical content was
    already published). Raises StageFailed."""
    from distressbench.gate.run import run_gate

    settings = settings or Settings()
    layout = WarehouseLayout(warehouse.absolute())
    release_dir = release_dir.absolute()
    with ExitStack() as stack:
        with _stage("prepare"):
            layout.builds_dir.mkdir(parents=True, exist_ok=True)
            stack.enter_context(build_lock(layout.lock, layout.published))
            scratch = layout.builds_dir / WORK_FOLDER
            end_leftover(scratch / "dbt")  # a killed build's dbt process, if it still runs
            history = published_history(layout)
            remove_stale_files(layout, history)
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
            scratch.mkdir()
        release = load_release(release_dir)
        digest = release.manifest_sha256 or ""
        building = scratch / BUILDING_FILE
        stack.callback(_discard_unpublished, building)  # a failed build keeps its logs, not its database
        links = link_folder(layout.published)
        # dbt imports and parses the project while the gate checks the files
        dbt = DbtProcess.start(
            database=building,
            release_links=links,
            log_dir=scratch / "dbt",
            target_dir=layout.builds_dir / DBT_TARGET,
            threads=settings.dbt_threads or dbt_threads(release),
            memory_limit=settings.memory_limit,
        )
        stack.callback(dbt.stop)
        with _stage("gate"):
            # the file checks, then the staging layer built into the unpublished file and the
            # value checks on what was built there
            report_path = scratch / "gate-report.json"
            report = run_gate(
                release,
                report_path,
                echo=False,
                memory_limit=settings.memory_limit,
                staging=DbtStaging(dbt, links, building),
            )
            if not report.passed:
                failures = [c.message for c in report.checks if not c.passed]
                raise StageFailed(
                    "gate",
                    f"the release breaks the contract in {len(failures)} check(s):\n  "
                    + "\n  ".join(failures)
                    + f"\nfull report: {report_path}",
                )
            _say(f"[gate] {len(report.checks)} checks passed")
        with _stage("publish check"):
            release_id = release.release_id
            previous = next((r for r in reversed(history) if r["release_id"] == release_id), None)
            current = layout.current_build()
            if previous is not None and not force:
                if previous["manifest_sha256"] != digest:
                    raise StageFailed(
                        "publish check",
                        f"release id {release_id!r} was published before with different content "
                        f"(manifest sha256 {previous['manifest_sha256']}, now {digest}); use --force to replace it",
                    )
                if current is not None and current.name == previous["build_file"]:
                    _say(f"release {release_id} is already published with identical content: nothing to do")
                    dbt.stop()  # before its work folder goes
                    remove_stale_files(layout, history)
                    return current, False
        database = layout.builds_dir / f"{release_id}-{stamp}.duckdb"
        with _stage("history"):
            # the results of the releases published before, carried into the unpublished file
            # (which the gate has created) for the history staging models dbt builds next
            carry_forward(layout.current_build(), building)
        with _stage("dbt build"):
            run_dbt(dbt, release)
        with _stage("verify"):
            verify_release_unchanged(release)
        record = {
            "release_id": release_id,
            "manifest_sha256": digest,
            "published_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "build_file": database.name,
            "release_dir": str(release_dir),
            "gate_report": report.to_json(),
        }
        history = [*history, record]
        with _stage("audit"):
            record_publication(building, history)
            audit(building, release, release_id)
        with _stage("publish"):
            os.replace(building, database)
            publish(layout, database, scratch)
            _write_log(layout, history)
        remove_stale_files(layout, history)
    return database, True


# The longest name the layout puts beside the published path (see WarehouseLayout.log).
_LONGEST_SUFFIX = ".published_releases.jsonl"
_NAME_MAX = 255


def _release_folder_above(path: Path) -> Path | None:
    """The nearest folder at or above `path`'s folder that holds a release (manifest.json
    or a table file of the contract)."""
    markers = (contract.MANIFEST, *(contract.file_name(t) for t in contract.REQUIRED_TABLES))
    for folder in path.parents:
        if any(os.path.lexists(folder / marker) for marker in markers):
            return folder
    return None


def warehouse_refusal(warehouse: Path) -> str | None:
    """Why `warehouse` cannot be published to, or None. A build may only replace a
    published warehouse of this project or a DuckDB file (kept beside its builds)."""
    from distressbench.outputs.warehouse import is_duckdb_file

    warehouse = warehouse.absolute()
    layout = WarehouseLayout(warehouse)
    if warehouse.is_dir():
        return f"{warehouse} is a folder; --warehouse names the database file to publish"
    if len((warehouse.name + _LONGEST_SUFFIX).encode()) > _NAME_MAX:
        return f"the file name {warehouse.name!r} is too long (at most {_NAME_MAX - len(_LONGEST_SUFFIX)} bytes)"
    if warehouse.parent.name.endswith(".builds"):
        return f"{warehouse} is inside {warehouse.parent}, the builds folder of a warehouse; publish beside it"
    release = _release_folder_above(warehouse)
    if release is not None:
        return f"{warehouse} is inside the release folder {release}; publish the warehouse somewhere else"
    if not os.path.lexists(warehouse) or layout.is_own_link() or is_duckdb_file(warehouse):
        return None
    if warehouse.is_symlink():
        return f"{warehouse} is a symlink to {os.readlink(warehouse)}, which is not a DuckDB database file"
    return f"{warehouse} exists and is not a DuckDB database file; refusing to replace it"


def _published_state(warehouse: Path) -> tuple[str | None, Path | None]:
    """What the published path is now: its symlink target (None for a plain file) and the file it reaches."""
    layout = WarehouseLayout(warehouse.absolute())
    link = os.readlink(warehouse) if warehouse.is_symlink() else None
    return link, layout.current_build()


def unwritable_folder(warehouse: Path) -> Path | None:
    """The first folder the publish writes in (beside the published path, its builds folder)
    where a file cannot be created, or None. Each is tried by creating and removing a file,
    which also holds for root (for whom permission bits do not stop a write, but a read-only
    mount or an immutable folder does)."""
    layout = WarehouseLayout(warehouse.absolute())
    nearest = next(folder for folder in (layout.published.parent, *layout.published.parent.parents) if folder.exists())
    for folder in (nearest, layout.builds_dir):
        if not folder.is_dir():
            continue  # the builds folder is made inside the folder just tried
        try:
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".distressbench-write-check-"):
                pass
        except OSError:
            return folder
    return None


def build(release_dir: Path | None, warehouse: Path, settings: Settings, *, force: bool = False) -> int:
    """The `distressbench build` command."""
    refusal = warehouse_refusal(warehouse)
    if refusal is not None:
        print(f"build: {refusal}", file=sys.stderr)
        return 2
    if release_dir is None:
        from distressbench.synth.generate import ensure_default_release

        release_dir = ensure_default_release()
    if not release_dir.is_dir():
        print(f"build: no such release folder: {release_dir}", file=sys.stderr)
        return 2
    unwritable = unwritable_folder(warehouse)
    if unwritable is not None:
        print(f"build: cannot write in {unwritable}, where the publish must write; nothing was built", file=sys.stderr)
        return 2
    before = _published_state(warehouse)
    try:
        database, published = build_release(release_dir, warehouse, settings, force=force)
    except StageFailed as error:
        print(str(error), file=sys.stderr)
        after = _published_state(warehouse)  # said as it is now, whatever stage failed
        if after == before:
            print(f"the published warehouse {warehouse} is unchanged", file=sys.stderr)
        elif after[1] is None:
            print(f"the published warehouse {warehouse} no longer reaches a database file", file=sys.stderr)
        else:
            print(
                f"the published warehouse {warehouse} changed: it now points at {after[1].name} "
                "(the new release is published; what failed came after the switch)",
                file=sys.stderr,
            )
        return 1
    if published:
        _say(f"published {warehouse} -> {database.name}")
    print_headline(database)
    return 0
