"""`distressbench gate`: the gate on its own. Its staging runs the staging models' SQL, as dbt
compiled it, in DuckDB (distressbench.dbt.staging.SqlStaging) into a scratch database in the
gate's workspace; dbt starts only to compile that SQL, once for each state of the project
(distressbench.dbt.compiled), and only when a release reaches the value checks."""

from __future__ import annotations

import functools
from pathlib import Path

from distressbench.dbt.compiled import GATE_DATABASE, staging_sql
from distressbench.dbt.staging import SqlStaging, gate_workspace, link_folder
from distressbench.gate.results import GateReport
from distressbench.gate.run import run_gate
from distressbench.release.release import Release, load_release
from distressbench.settings import Settings


def gate(release: Release | Path, report_path: Path | None, settings: Settings, *, echo: bool = True) -> GateReport:
    """`distressbench gate`: the gate, its staging run by DuckDB into a scratch database."""
    loaded = release if isinstance(release, Release) else load_release(Path(release))
    with gate_workspace(settings.project_dir) as folder:
        database = folder / GATE_DATABASE
        _remove(database)
        models = functools.partial(staging_sql, settings)
        staging = SqlStaging(models, link_folder(folder), database, settings.memory_limit)
        try:
            return run_gate(loaded, report_path, echo=echo, memory_limit=settings.memory_limit, staging=staging)
        finally:
            _remove(database)


def _remove(database: Path) -> None:
    for suffix in ("", ".wal"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
