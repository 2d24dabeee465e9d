"""`distressbench gate`: the gate on its own, with dbt running the staging models into a
scratch database in the gate's workspace (distressbench.dbt.staging)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from distressbench.dbt.process import DbtProcess
from distressbench.dbt.staging import DbtStaging, StagingResult, gate_workspace, link_folder
from distressbench.gate.results import GateReport
from distressbench.gate.run import run_gate
from distressbench.release.release import Release, load_release
from distressbench.settings import Settings


def gate(release: Release | Path, report_path: Path | None, settings: Settings, *, echo: bool = True) -> GateReport:
    """`distressbench gate`: the gate, with dbt running the staging models into a scratch
    database; dbt starts only when the value checks need it (the files and schemas passed)."""
    loaded = release if isinstance(release, Release) else load_release(Path(release))
    with gate_workspace(settings.project_dir) as folder:
        database = folder / "gate.duckdb"
        for suffix in ("", ".wal"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        links = link_folder(folder)
        started: list[DbtProcess] = []

        def staging(release_dir: Path, tables: dict[str, Path], manifest: Path | None) -> Callable[[], StagingResult]:
            dbt = DbtProcess.start(
                project=settings.project_dir,
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
