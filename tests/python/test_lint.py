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


@pytest.mark.parametrize("has_annex", [True, False], ids=["with the red-team annex", "without it"])
def test_sqlfluff_finds_nothing(tmp_path: Path, has_annex: bool) -> None:
    # stg_release__redteam_transcripts renders one of two branches, by whether the release
    # has the optional annex: lint both, whatever release folder this machine happens to have
    release = tmp_path / "release"
    release.mkdir()
    if has_annex:
        (release / "redteam_transcripts.parquet").touch()
    env = {
        **os.environ,
        "DISTRESSBENCH_RELEASE": str(release),
        # the dbt templater compiles the project: keep its database, target and logs out of the tree
        "DISTRESSBENCH_BUILD_DB": str(tmp_path / "lint.duckdb"),
        "DBT_TARGET_PATH": str(tmp_path / "target"),
        "DBT_LOG_PATH": str(tmp_path / "logs"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    result = _run([str(BIN / "sqlfluff"), "lint", "models", "macros", "tests", "--nocolor"], env)
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
