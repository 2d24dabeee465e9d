"""Shared fixtures: a small valid release built by hand (see release_factory), the session's
published warehouses and its one dbt process for the gate (fixtures/); the tiers.

The tiers: a test under unit/ is marked `unit` unless it is marked `integration` or reads one
of the session's built warehouses; every other test is marked `integration`. A unit test
starts no process (calling subprocess.Popen fails it); the gate's value checks run on the
session's one dbt process (fixtures/gate_fixture.py), started before the test."""

from __future__ import annotations

import subprocess
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

# the session's published warehouse (hostile_warehouse, of hostile_release), built on first
# use; the models compiled once to run on DuckDB directly (compiled_models); and the dbt
# process for the gate (shared_gate)
pytest_plugins = [
    "fixtures.hostile_warehouse",
    "fixtures.compiled_models",
    "fixtures.gate_fixture",
]

UNIT_FOLDER = Path(__file__).resolve().parent / "unit"
# fixtures whose warehouse dbt builds: a test reading one is an integration test
WAREHOUSE_FIXTURES = frozenset({"hostile_warehouse", "hostile_release"})

SPARK_OUTCOMES: list[str] = []


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test with its tier (see the module's docstring), and put the files holding
    Spark tests first: the Spark file is the suite's longest, so one worker starts it while
    the other runs the rest (pyproject.toml: one worker per core, each file on one)."""
    for item in items:
        if item.get_closest_marker("integration") is not None:
            continue
        fixtures = set(getattr(item, "fixturenames", ()))
        if UNIT_FOLDER in item.path.parents and not fixtures & WAREHOUSE_FIXTURES:
            item.add_marker(pytest.mark.unit)
        else:
            item.add_marker(pytest.mark.integration)
    spark_files = {item.path for item in items if item.get_closest_marker("spark") is not None}
    items.sort(key=lambda item: item.path not in spark_files)


@pytest.fixture(autouse=True)
def _a_unit_test_starts_no_process(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail a unit test that starts a process (subprocess.run and the like call Popen)."""
    if request.node.get_closest_marker("unit") is None:
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a unit test starts no process (mark it integration): {args[:1]}")

    monkeypatch.setattr(subprocess, "Popen", refuse)


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
