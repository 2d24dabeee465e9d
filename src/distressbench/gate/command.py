"""`distressbench gate`: the gate on its own, with dbt running the staging models into a
scratch database in the gate's workspace (distressbench.dbt.staging)."""

from __future__ import annotations

from pathlib import Path

from distressbench.dbt.process import DbtProcess
from distressbench.dbt.staging import DbtStaging, gate_workspace, link_folder
from distressbench.gate.results import GateReport
from distressbench.gate.run import run_gate
from distressbench.release.release import Release
from distressbench.settings import Settings


def gate(release: Release | Path, report_path: Path | None, settings: Settings, *, echo: bool = True) -> GateReport:
    """`distressbench gate`: the gate, with dbt running the staging models into a scratch database."""
    with gate_workspace(settings.project_dir) as folder:
        database = folder / "gate.duckdb"
        for suffix in ("", ".wal"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        links = link_folder(folder)
        dbt = DbtProcess.start(
            project=settings.project_dir,
            database=database,
            release_links=links,
            log_dir=folder / "dbt",
            target_dir=folder / "target",
            threads=settings.dbt_threads or 1,
            memory_limit=settings.memory_limit,
        )
        try:
            return run_gate(
                release,
                report_path,
                echo=echo,
                memory_limit=settings.memory_limit,
                staging=DbtStaging(dbt, links, database),
            )
        finally:
            dbt.stop()
            for suffix in ("", ".wal"):
                Path(f"{database}{suffix}").unlink(missing_ok=True)
