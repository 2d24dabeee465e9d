"""Where the project, the embedded default release and the published warehouse live, and
how much memory DuckDB may take: the settings read from the environment, with their defaults."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SEEDS_DIR = PROJECT_ROOT / "seeds"

DEFAULT_RELEASE_DIR = PROJECT_ROOT / "data" / "releases" / "synthetic-default"
DEFAULT_WAREHOUSE = PROJECT_ROOT / "warehouse" / "distressbench.duckdb"
# DuckDB spills beyond it; at 100x a build stays near a quarter of the pandas baseline's peak.
# profiles.yml repeats it as env_var's default for plain dbt (tests/python/test_dbt_project.py
# keeps the two equal).
DEFAULT_MEMORY_LIMIT = "2GB"


def release_dir() -> Path:
    """The release dbt reads: DISTRESSBENCH_RELEASE, else the embedded default."""
    configured = os.environ.get("DISTRESSBENCH_RELEASE")
    return Path(configured).resolve() if configured else DEFAULT_RELEASE_DIR


def warehouse_path() -> Path:
    """The published warehouse: DISTRESSBENCH_WAREHOUSE, else warehouse/distressbench.duckdb."""
    configured = os.environ.get("DISTRESSBENCH_WAREHOUSE")
    return Path(configured).resolve() if configured else DEFAULT_WAREHOUSE


def memory_limit() -> str:
    """DuckDB's memory limit for the gate, dbt and submit: DISTRESSBENCH_MEMORY_LIMIT, else 2GB."""
    return os.environ.get("DISTRESSBENCH_MEMORY_LIMIT") or DEFAULT_MEMORY_LIMIT
