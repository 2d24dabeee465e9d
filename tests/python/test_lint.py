"""The committed lint configurations hold for the whole tree: sqlfluff (.sqlfluff: dbt
templater, DuckDB dialect, the house SQL style) over the models, macros and data tests,
ruff ([tool.ruff] in pyproject.toml) over the Python (its lint and its format), and
import-linter ([tool.importlinter]) over the package's layers. Any finding fails the test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from distressbench import settings

BIN = Path(sys.executable).parent


def _run(command: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=settings.PROJECT_ROOT, env=env, capture_output=True, text=True, check=False)


# the one model whose rendering depends on whether the release has the red-team annex
ANNEX_MODEL = "models/staging/release/stg_release__redteam_transcripts.sql"


@pytest.fixture(scope="module")
def lint_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of sqlfluff's dbt templater, one for both lints: the same release
    folder and dbt target, so the second lint reuses the first one's parse."""
    folder = tmp_path_factory.mktemp("lint")
    (folder / "release").mkdir()
    return {
        **os.environ,
        "DISTRESSBENCH_RELEASE": str(folder / "release"),
        # the dbt templater compiles the project: keep its database, target and logs out of the tree
        "DISTRESSBENCH_BUILD_DB": str(folder / "lint.duckdb"),
        "DBT_TARGET_PATH": str(folder / "target"),
        "DBT_LOG_PATH": str(folder / "logs"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }


@pytest.mark.parametrize("has_annex", [True, False], ids=["with the red-team annex", "without it"])
def test_sqlfluff_finds_nothing(lint_env: dict[str, str], has_annex: bool) -> None:
    # stg_release__redteam_transcripts renders one of two branches, by whether the release
    # has the optional annex: lint every file with it, and that model again without it
    annex = Path(lint_env["DISTRESSBENCH_RELEASE"]) / "redteam_transcripts.parquet"
    if has_annex:
        annex.touch()
    else:
        annex.unlink(missing_ok=True)
    paths = ["models", "macros", "tests"] if has_annex else [ANNEX_MODEL]
    result = _run([str(BIN / "sqlfluff"), "lint", *paths, "--nocolor"], lint_env)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "All Finished" in result.stdout


def test_ruff_finds_nothing() -> None:
    result = _run([str(BIN / "ruff"), "check", "--no-cache", "."])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "All checks passed" in result.stdout


def test_ruff_format_changes_nothing() -> None:
    result = _run([str(BIN / "ruff"), "format", "--check", "--no-cache", "."])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "already formatted" in result.stdout


def test_layers_point_down() -> None:
    # lint-imports reads the contracts of [tool.importlinter] in pyproject.toml
    env = {**os.environ, "PYTHONPATH": str(settings.PROJECT_ROOT / "src")}
    result = _run([str(BIN / "lint-imports"), "--no-cache"], env)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout
