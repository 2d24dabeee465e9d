"""Where the project, the embedded default release and the published warehouse live, how
much memory DuckDB may take (the settings read from the environment, with their defaults),
and the project's vars (dbt_project.yml)."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import yaml

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SEEDS_DIR = PROJECT_ROOT / "seeds"

DEFAULT_RELEASE_DIR = PROJECT_ROOT / "data" / "releases" / "synthetic-default"
DEFAULT_WAREHOUSE = PROJECT_ROOT / "warehouse" / "distressbench.duckdb"
# DuckDB spills beyond it. At 100x the build's peak (dbt's process: DuckDB plus ~0.2 GiB of
# Python) was 2.2 GiB with it, 2.3 GiB with 2GB, a little under a quarter of the pandas
# baseline's; 2GB was ~2% faster (docs/benchmarks.md, eighth round).
# profiles.yml repeats it as env_var's default for plain dbt (tests/python/test_dbt_project.py
# keeps the two equal).
DEFAULT_MEMORY_LIMIT = "1.8GB"


def dbt_var(name: str) -> Any:
    """A var of dbt_project.yml, as the models see it when dbt is given no --vars (the gate,
    the release history and the table captions read the project's constants from there)."""
    try:
        return _dbt_vars()[name]
    except KeyError:
        raise KeyError(f"var {name!r} is not in dbt_project.yml") from None


@functools.cache
def _dbt_vars() -> dict[str, Any]:
    project = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text(encoding="utf-8"))
    return project.get("vars") or {}


def release_dir() -> Path:
    """The release dbt reads: DISTRESSBENCH_RELEASE, else the embedded default."""
    configured = os.environ.get("DISTRESSBENCH_RELEASE")
    return Path(configured).resolve() if configured else DEFAULT_RELEASE_DIR


def warehouse_path() -> Path:
    """The published warehouse: DISTRESSBENCH_WAREHOUSE, else warehouse/distressbench.duckdb."""
    configured = os.environ.get("DISTRESSBENCH_WAREHOUSE")
    return Path(configured).resolve() if configured else DEFAULT_WAREHOUSE


def memory_limit() -> str:
    """DuckDB's memory limit for the gate, dbt and submit: DISTRESSBENCH_MEMORY_LIMIT, else 1.8GB."""
    return os.environ.get("DISTRESSBENCH_MEMORY_LIMIT") or DEFAULT_MEMORY_LIMIT
