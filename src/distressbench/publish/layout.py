"""Where a published warehouse lives, and how a build publishes into it.

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
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from distressbench.publish.stages import say
from distressbench.release.release import Release

KEEP_PREVIOUS_BUILDS = 1
WORK_FOLDER = "work-current"  # fixed, so the profile dbt sees is the same for every build
BUILDING_FILE = "building.duckdb"
DBT_TARGET = "dbt-target"  # dbt's target folder, kept between builds for partial parsing

Record = dict[str, Any]


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

    def current_build(self) -> Path | None:
        """The file the published path points at (or is), if it exists."""
        return self.published.resolve() if self.published.exists() else None

    def is_own_link(self) -> bool:
        """The published path is a symlink into this warehouse's builds folder."""
        if not self.published.is_symlink():
            return False
        target = self.published.parent / os.readlink(self.published)
        return target.parent.resolve() == self.builds_dir.resolve()


@contextmanager
def build_lock(lock: Path, built: Path) -> Iterator[None]:
    """Serialise the builds of one warehouse (`built`), through the file `lock`. The kernel
    drops the lock when its holder dies, so a killed build never blocks the next one."""
    with lock.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for another build of {built} to finish ...")
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


def write_log(layout: WarehouseLayout, history: list[Record]) -> None:
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
    except duckdb.Error as error:
        say(f"warning: cannot read the publication record of {current} ({error}); using {layout.log}")
        return read_log(layout)
    history = [
        dict(zip(names, row, strict=False)) | {"gate_report": json.loads(row[names.index("gate_report")])}
        for row in rows
    ]
    if read_log(layout) != history:
        write_log(layout, history)
    return history


def remove_stale_files(layout: WarehouseLayout, history: list[Record]) -> None:
    """Under the build lock: remove everything in the builds folder but the published file,
    the newest previously published one (with their .wal/.tmp companions):
    work folders of finished, failed or killed builds, files never published, old gate
    reports. Readers holding a removed file keep reading it. dbt's target folder stays."""
    current = layout.current_build()
    published = list(dict.fromkeys(str(r["build_file"]) for r in reversed(history)))
    previous = [name for name in published if current is None or name != current.name]
    keep = {*previous[:KEEP_PREVIOUS_BUILDS], *([current.name] if current else []), DBT_TARGET}
    for path in layout.builds_dir.iterdir():
        base = path.name.removesuffix(".wal").removesuffix(".tmp")
        if base in keep:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


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


def publication_record(release: Release, database: Path, gate_report: dict[str, Any]) -> Record:
    """This build's line of the publication history: the release, when, the file it is
    published as, and the gate's report."""
    return {
        "release_id": release.release_id,
        "manifest_sha256": release.manifest_sha256 or "",
        "published_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "build_file": database.name,
        "release_dir": str(release.folder),
        "gate_report": gate_report,
    }


def publish(layout: WarehouseLayout, database: Path, scratch: Path) -> None:
    """Point the published path at `database` with one atomic rename."""
    published = layout.published
    link = scratch / "published.link"
    link.symlink_to(os.path.relpath(database, published.parent))
    os.replace(link, published)


def discard_unpublished(building: Path) -> None:
    """Remove the work database if it was not published (renamed away)."""
    for suffix in ("", ".wal"):
        Path(f"{building}{suffix}").unlink(missing_ok=True)


def published_state(warehouse: Path) -> tuple[str | None, Path | None]:
    """What the published path is now: its symlink target (None for a plain file) and the file it reaches."""
    layout = WarehouseLayout(warehouse.absolute())
    link = os.readlink(warehouse) if warehouse.is_symlink() else None
    return link, layout.current_build()
