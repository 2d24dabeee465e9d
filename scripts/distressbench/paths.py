"""Where the project, the embedded default release and the published warehouse live."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SEEDS_DIR = PROJECT_ROOT / "seeds"

DEFAULT_RELEASE_DIR = PROJECT_ROOT / "data" / "releases" / "synthetic-default"
DEFAULT_WAREHOUSE = PROJECT_ROOT / "warehouse" / "distressbench.duckdb"


def release_dir() -> Path:
    """The release dbt reads: DISTRESSBENCH_RELEASE, else the embedded default."""
    configured = os.environ.get("DISTRESSBENCH_RELEASE")
    return Path(configured).resolve() if configured else DEFAULT_RELEASE_DIR


def warehouse_path() -> Path:
    """The published warehouse: DISTRESSBENCH_WAREHOUSE, else warehouse/distressbench.duckdb."""
    configured = os.environ.get("DISTRESSBENCH_WAREHOUSE")
    return Path(configured).resolve() if configured else DEFAULT_WAREHOUSE
