"""Shared fixtures: a small valid release built by hand (see release_factory), and the
session's published warehouses (fixtures/)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

# Property tests are deterministic: the same examples on every run and machine (derandomize,
# no example database), no deadline (a build's time varies with the machine), and a failing
# example is printed with the blob that reproduces it (@reproduce_failure).
settings.register_profile("deterministic", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile("deterministic")

from fixtures.release_factory import make_release  # noqa: E402

# the session's published warehouses (paper_warehouse, case_warehouse, case_release), each
# built on first use, and the models compiled once to run on DuckDB directly (compiled_models)
pytest_plugins = ["fixtures.warehouse_fixture", "fixtures.case_fixture", "fixtures.compiled_models"]

SPARK_OUTCOMES: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Note the outcome of each test marked spark, for the summary below."""
    if "spark" in report.keywords and (report.when == "call" or report.outcome != "passed"):
        SPARK_OUTCOMES.append(f"{report.outcome.upper()} {report.nodeid} ({report.duration:.0f} s, {report.when})")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Name the Spark tests and their outcomes in every run's log (CI's included), since a
    passing test is otherwise only a dot."""
    if SPARK_OUTCOMES:
        terminalreporter.section("Spark (pytest -m spark)")
        for line in SPARK_OUTCOMES:
            terminalreporter.write_line(line)


@pytest.fixture
def good_release(tmp_path: Path) -> Path:
    """A fresh copy of the valid fixture release, safe to break."""
    return make_release(tmp_path / "release")
