"""The build's checks outside dbt: before it (may this warehouse be published to, can its
folders be written), and after dbt (the release unchanged since the gate read it, the
audit of the built file)."""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb

from distressbench.dbt import relations
from distressbench.publish.layout import Record, WarehouseLayout
from distressbench.publish.stages import StageFailed
from distressbench.release import contract
from distressbench.release.manifest import manifest_sha256, sha256_of
from distressbench.release.release import Release

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
    warehouse this project published (a symlink into its builds folder)."""
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
    if not os.path.lexists(warehouse) or layout.is_own_link():
        return None
    if is_duckdb_file(warehouse):
        return (
            f"{warehouse} is a DuckDB file that no build published (0.1.0's, or plain dbt's); "
            "move it away or build into another path"
        )
    if warehouse.is_symlink():
        return f"{warehouse} is a symlink to {os.readlink(warehouse)}, which is not a DuckDB database file"
    return f"{warehouse} exists and is not a DuckDB database file; refusing to replace it"


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


def already_published(layout: WarehouseLayout, history: list[Record], release: Release, force: bool) -> Path | None:
    """The publish check: the published file when it already holds `release` with identical
    content (nothing to build), else None. A release id published before with other content
    raises StageFailed unless `force`."""
    previous = next((r for r in reversed(history) if r["release_id"] == release.release_id), None)
    if previous is None or force:
        return None
    digest = release.manifest_sha256 or ""
    if previous["manifest_sha256"] != digest:
        raise StageFailed(
            "publish check",
            f"release id {release.release_id!r} was published before with different content "
            f"(manifest sha256 {previous['manifest_sha256']}, now {digest}); use --force to replace it",
        )
    current = layout.current_build()
    return current if current is not None and current.name == previous["build_file"] else None


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
            relation = relations.staging_relation(table)
            count = "coalesce(sum(n_labels), 0)" if table == "judge_labels" else "count(*)"
            (rows,) = connection.execute(f"select {count} from {relation}").fetchone()
            if rows != listed["rows"]:
                problems.append(f"{relation} counts {rows} rows, the manifest says {listed['rows']}")
        n_tasks = files[contract.file_name("tasks")]["rows"]
        n_models = files[contract.file_name("models")]["rows"]
        (cells,) = connection.execute(f"select count(*) from {relations.CELL_SCORES}").fetchone()
        if cells != n_tasks * n_models:
            problems.append(f"{relations.CELL_SCORES} has {cells} rows, expected {n_tasks} tasks x {n_models} models")
        (labels,) = connection.execute(f"select coalesce(sum(n_labels), 0) from {relations.VERDICTS}").fetchone()
        n_labels = files[contract.file_name("judge_labels")]["rows"]
        if labels != n_labels:
            problems.append(f"{relations.VERDICTS} counts {labels} judge labels, the manifest lists {n_labels}")
        ids = [
            r[0] for r in connection.execute(f"select distinct release_id from {relations.HEADLINE_METRICS}").fetchall()
        ]
        if ids != [release_id]:
            problems.append(f"{relations.HEADLINE_METRICS} holds release ids {ids}, expected [{release_id!r}]")
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
