"""The settings of one command: read from the environment once (`Settings.from_environment`,
by the CLI) and passed down; where the project lives and where it keeps its temporary
folders; the project's dbt vars, read once.

The package runs from its checkout (an editable install): the dbt project it drives
(dbt_project.yml, profiles.yml, models/, macros/, seeds/, tests/) is the checkout's, found
from this file, and PROJECT_ROOT is named here alone (the rest of the package takes
`Settings.project_dir` or the paths below).

Each default lives in one place: the environment's in `Settings` below, the models' constants
in dbt_project.yml's vars. profiles.yml's `env_var(..., default)` are the defaults of plain
`dbt` runs (outside this package), which `test_dbt_project.py` keeps equal to these.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from distressbench.errors import UsageError

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SEEDS_DIR = PROJECT_ROOT / "seeds"

DEFAULT_RELEASE_DIR = PROJECT_ROOT / "data" / "releases" / "synthetic-default"
DEFAULT_WAREHOUSE = PROJECT_ROOT / "warehouse" / "distressbench.duckdb"
DEFAULT_SPARK_DIR = PROJECT_ROOT / "warehouse" / "spark"
# DuckDB spills beyond it (the gate's connection and dbt's, in a release build); profiles.yml
# repeats it as env_var's default for plain dbt.
DEFAULT_MEMORY_LIMIT = "1.8GB"


def temporary_folder(key: Path, kind: str = "") -> Path:
    """This user's folder for `key` (a warehouse, a checkout) under the system's temporary
    folder, named by a digest of it and by `kind` (what the folder holds)."""
    digest = hashlib.sha256(str(key).encode()).hexdigest()[:16]
    name = "-".join(["distressbench", str(os.getuid()), *([kind] if kind else []), digest])
    return Path(tempfile.gettempdir()).absolute() / name


@dataclass(frozen=True)
class Settings:
    """What the environment sets for one command (variable: meaning, default)."""

    warehouse: Path = DEFAULT_WAREHOUSE  # DISTRESSBENCH_WAREHOUSE: the published warehouse
    memory_limit: str = DEFAULT_MEMORY_LIMIT  # DISTRESSBENCH_MEMORY_LIMIT: DuckDB's memory limit
    dbt_threads: int | None = None  # DISTRESSBENCH_THREADS: dbt's threads (None: by release size)
    spark_dir: Path = DEFAULT_SPARK_DIR  # DISTRESSBENCH_SPARK_DIR: where Spark builds live
    spark_remote: str | None = None  # SPARK_REMOTE: a Spark Connect server (None: a local Spark)
    debug: bool = False  # DISTRESSBENCH_DEBUG: an unexpected error shows its traceback
    # the dbt project the commands drive: this checkout (read when the settings are made)
    project_dir: Path = field(default_factory=lambda: PROJECT_ROOT)
    # the project's dbt vars (dbt_project.yml), as the models see them when dbt is given no --vars
    dbt_vars: Mapping[str, Any] = field(default_factory=lambda: _dbt_vars())

    def var(self, name: str) -> Any:
        """The dbt var `name`; KeyError naming it if the project has no such var."""
        try:
            return self.dbt_vars[name]
        except KeyError:
            raise KeyError(f"var {name!r} is not in dbt_project.yml") from None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings the variables in `environ` (default: this process's) give; an unset
        or empty variable takes its default. A bad value raises ValueError naming it."""
        env = os.environ if environ is None else environ
        threads = env.get("DISTRESSBENCH_THREADS") or None
        if threads is not None and not (threads.isdigit() and int(threads) > 0):
            raise UsageError(f"DISTRESSBENCH_THREADS must be a positive whole number, not {threads[:40]!r}")
        warehouse = env.get("DISTRESSBENCH_WAREHOUSE")
        spark_dir = env.get("DISTRESSBENCH_SPARK_DIR")
        return cls(
            warehouse=Path(warehouse).absolute() if warehouse else DEFAULT_WAREHOUSE,
            memory_limit=env.get("DISTRESSBENCH_MEMORY_LIMIT") or DEFAULT_MEMORY_LIMIT,
            dbt_threads=int(threads) if threads is not None else None,
            spark_dir=Path(spark_dir).absolute() if spark_dir else DEFAULT_SPARK_DIR,
            spark_remote=env.get("SPARK_REMOTE") or None,
            debug=bool(env.get("DISTRESSBENCH_DEBUG")),
        )


@functools.cache
def _dbt_vars() -> dict[str, Any]:
    project = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text(encoding="utf-8"))
    return project.get("vars") or {}
