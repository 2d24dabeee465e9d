"""`distressbench build`: gate, build into a new file, audit, publish atomically, log.

The published warehouse path is a symlink to one immutable, fully built database file in
`<stem>.builds/`. A build writes a new file next to it and only a rename of a fresh
symlink over the old one publishes it, so analysts with the old file open keep reading
it, new sessions see the new release, and a build that fails or is killed at any moment
leaves the published warehouse exactly as it was.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from distressbench import contract, paths
from distressbench.manifest import manifest_sha256, read_manifest

KEEP_PREVIOUS_BUILDS = 1


class StageFailed(RuntimeError):
    """A build stage failed; the published warehouse was not touched."""

    def __init__(self, stage: str, message: str) -> None:
        super().__init__(f"build failed at stage '{stage}': {message}")
        self.stage = stage


@dataclass(frozen=True)
class WarehouseLayout:
    """Where a published warehouse keeps its builds, log and lock."""

    published: Path

    @property
    def builds_dir(self) -> Path:
        return self.published.parent / f"{self.published.stem}.builds"

    @property
    def log(self) -> Path:
        return self.published.parent / f"{self.published.stem}.published_releases.jsonl"

    @property
    def lock(self) -> Path:
        return self.published.parent / f"{self.published.stem}.lock"

    def current_build(self) -> Path | None:
        """The file the published path points at, if any."""
        if self.published.is_symlink() or self.published.exists():
            return self.published.resolve()
        return None


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
def build_lock(layout: WarehouseLayout) -> Iterator[None]:
    """Serialise builds of one warehouse. The kernel drops the lock when its holder dies,
    so a killed build never blocks the next one."""
    layout.lock.parent.mkdir(parents=True, exist_ok=True)
    with layout.lock.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _say(f"waiting for another build of {layout.published} to finish ...")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_log(layout: WarehouseLayout) -> list[dict[str, object]]:
    if not layout.log.exists():
        return []
    lines = layout.log.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _published_record(layout: WarehouseLayout, release_id: str) -> dict[str, object] | None:
    records = [r for r in read_log(layout) if r["release_id"] == release_id]
    return records[-1] if records else None


def _remove_stale_builds(layout: WarehouseLayout) -> None:
    """Drop half-written files of killed builds and all but the newest previous build.
    Runs under the build lock; readers holding a removed file keep reading it."""
    if not layout.builds_dir.exists():
        return
    current = layout.current_build()
    finished = {Path(str(r["build_file"])).name for r in read_log(layout)}
    kept_previous = 0
    for path in sorted(layout.builds_dir.glob("*.duckdb"), key=lambda p: p.stat().st_mtime, reverse=True):
        if current is not None and path == current:
            continue
        if path.name in finished and kept_previous < KEEP_PREVIOUS_BUILDS:
            kept_previous += 1
            continue
        path.unlink(missing_ok=True)
        path.with_name(path.name + ".wal").unlink(missing_ok=True)


def run_dbt(release_dir: Path, database: Path, *, log_dir: Path) -> None:
    """`dbt build` of the whole project into `database`, reading `release_dir`."""
    env = {
        **os.environ,
        "DISTRESSBENCH_RELEASE": str(release_dir),
        "DISTRESSBENCH_BUILD_DB": str(database),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_TARGET_PATH": str(log_dir / "target"),
        "DBT_LOG_PATH": str(log_dir / "logs"),
    }
    dbt = Path(sys.executable).with_name("dbt")
    command = [str(dbt), "build", "--profiles-dir", str(paths.PROJECT_ROOT), "--project-dir", str(paths.PROJECT_ROOT)]
    result = subprocess.run(command, cwd=paths.PROJECT_ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        failures = [line for line in result.stdout.splitlines() if "ERROR" in line or "FAIL" in line]
        detail = "\n".join(failures[-20:]) or result.stdout[-3000:] or result.stderr[-3000:]
        raise StageFailed("dbt build", f"dbt exited {result.returncode}:\n{detail}")


def audit(database: Path, release_dir: Path) -> None:
    """Row counts reconcile with the manifest; the file checkpoints and reopens read-only."""
    manifest = read_manifest(release_dir)
    files = manifest["files"]
    problems: list[str] = []
    with duckdb.connect(str(database)) as connection:
        for table in contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES:
            listed = files.get(contract.file_name(table))
            if listed is None:
                continue
            (rows,) = connection.execute(f"select count(*) from staging.stg_release__{table}").fetchone()
            if rows != listed["rows"]:
                problems.append(f"staging.stg_release__{table} has {rows} rows, the manifest says {listed['rows']}")
        n_tasks = files[contract.file_name("tasks")]["rows"]
        n_models = files[contract.file_name("models")]["rows"]
        (cells,) = connection.execute("select count(*) from marts.cell_scores").fetchone()
        if cells != n_tasks * n_models:
            problems.append(f"marts.cell_scores has {cells} rows, expected {n_tasks} tasks x {n_models} models")
        (labels,) = connection.execute("select coalesce(sum(n_labels), 0) from marts.verdicts").fetchone()
        if labels != files[contract.file_name("judge_labels")]["rows"]:
            problems.append(f"marts.verdicts counts {labels} judge labels, the manifest lists {files['judge_labels.parquet']['rows']}")
        connection.execute("checkpoint")
    if problems:
        raise StageFailed("audit", "; ".join(problems))
    with duckdb.connect(str(database), read_only=True) as connection:
        (metrics,) = connection.execute("select count(*) from marts.headline_metrics").fetchone()
    if metrics == 0:
        raise StageFailed("audit", "marts.headline_metrics is empty")


def record_publication(database: Path, history: list[dict[str, object]], record: dict[str, object]) -> None:
    """Store the publication log inside the new file, so analysts can query it."""
    rows = [*history, record]
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
                [r["release_id"], r["manifest_sha256"], r["published_at"], r["build_file"], r["release_dir"], json.dumps(r["gate_report"])]
                for r in rows
            ],
        )
        connection.execute("checkpoint")


def publish(layout: WarehouseLayout, database: Path) -> None:
    """Point the published path at `database` with one atomic rename."""
    link = layout.published.with_name(f".{layout.published.name}.{os.getpid()}.link")
    link.unlink(missing_ok=True)
    link.symlink_to(os.path.relpath(database, layout.published.parent))
    os.replace(link, layout.published)


def print_headline(database: Path) -> None:
    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.sql(
            "select metric, value, ci_low, ci_high, paper_value from marts.headline_metrics"
        ).fetchall()
    _say(f"{'metric':<34} {'value':>7} {'95% CI':>17} {'paper':>7} {'diff':>7}")
    for metric, value, low, high, paper in rows:
        interval = f"[{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
        paper_text = f"{paper:.3f}" if paper is not None else ""
        diff = f"{value - paper:+.3f}" if paper is not None and value is not None else ""
        value_text = f"{value:.3f}" if value is not None else "null"
        _say(f"{metric:<34} {value_text:>7} {interval:>17} {paper_text:>7} {diff:>7}")


def build_release(release_dir: Path, warehouse: Path, *, force: bool = False) -> Path:
    """Run every stage; returns the published database file. Raises StageFailed."""
    from distressbench.gate import run_gate

    layout = WarehouseLayout(warehouse.absolute())
    layout.builds_dir.mkdir(parents=True, exist_ok=True)
    with build_lock(layout):
        _remove_stale_builds(layout)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        with _stage("gate"):
            report_path = layout.builds_dir / f"gate-{stamp}.json"
            report = run_gate(release_dir, report_path=report_path, echo=False)
            if not report.passed:
                failures = [c.message for c in report.checks if not c.passed]
                raise StageFailed(
                    "gate",
                    f"the release breaks the contract in {len(failures)} check(s):\n  "
                    + "\n  ".join(failures)
                    + f"\nfull report: {report_path}",
                )
            _say(f"[gate] {len(report.checks)} checks passed")
        release_id = str(read_manifest(release_dir)["release"])
        digest = manifest_sha256(release_dir)
        previous = _published_record(layout, release_id)
        if previous is not None and not force:
            if previous["manifest_sha256"] != digest:
                raise StageFailed(
                    "publish check",
                    f"release id {release_id!r} was published before with different content "
                    f"(manifest sha256 {previous['manifest_sha256']}, now {digest}); use --force to replace it",
                )
            current = layout.current_build()
            if current is not None and current.name == previous["build_file"]:
                _say(f"release {release_id} is already published with identical content: nothing to do")
                return current
        database = layout.builds_dir / f"{release_id}-{stamp}.duckdb"
        with tempfile.TemporaryDirectory(prefix="distressbench-dbt-") as log_dir, _stage("dbt build"):
            run_dbt(release_dir.absolute(), database, log_dir=Path(log_dir))
        with _stage("audit"):
            audit(database, release_dir)
        record = {
            "release_id": release_id,
            "manifest_sha256": digest,
            "published_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "build_file": database.name,
            "release_dir": str(release_dir.absolute()),
            "gate_report": report.to_json(),
        }
        with _stage("publish"):
            record_publication(database, read_log(layout), record)
            publish(layout, database)
            with layout.log.open("a", encoding="utf-8") as log:
                log.write(json.dumps(record) + "\n")
        _remove_stale_builds(layout)
    return database


def build(release_dir: Path | None, warehouse: Path, *, force: bool = False) -> int:
    """The `distressbench build` command."""
    if release_dir is None:
        from distressbench.synth import ensure_default_release

        release_dir = ensure_default_release()
    if not release_dir.is_dir():
        print(f"build: no such release folder: {release_dir}", file=sys.stderr)
        return 2
    try:
        database = build_release(release_dir, warehouse, force=force)
    except StageFailed as error:
        print(str(error), file=sys.stderr)
        print(f"the published warehouse {warehouse} is unchanged", file=sys.stderr)
        return 1
    _say(f"published {warehouse} -> {database.name}")
    print_headline(database)
    return 0
