"""Shared fixtures: a small valid release built by hand (see fixtures/releases), the session's
published warehouses and its one dbt process for the gate (fixtures/); the tiers.

The tiers, by folder alone: a test under unit/ is marked `unit`, every other test
`integration`. A unit test starts no process and builds no warehouse: calling
subprocess.Popen fails it, and a test under unit/ that asks for a fixture that starts one (the
gate's dbt process, the compiled models' dbt, a built warehouse) is a collection error. The
tests that need them live under integration/, in the package's folders."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

from fixtures.releases.hand_built import make_release

# Property tests are deterministic: the same examples on every run and machine (derandomize,
# no example database), no deadline (a build's time varies with the machine), and a failing
# example is printed with the blob that reproduces it (@reproduce_failure).
settings.register_profile("deterministic", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile("deterministic")

# the session's published warehouses (hostile_warehouse, of hostile_release;
# small_synthetic_warehouse), each built once for the session, across workers; the models
# compiled once to run on DuckDB directly (compiled_models); the dbt process for the gate
# (shared_gate) and the gate run on it or its file stages alone (gate_run, files_run); a small
# warehouse for `sql` (small_warehouse); a split release (split)
pytest_plugins = [
    "fixtures.session_warehouses",
    "fixtures.hostile_warehouse",
    "fixtures.compiled_models",
    "fixtures.gate_fixture",
    "fixtures.gate_runs",
    "fixtures.cli_calls",
    "fixtures.releases.submission",
]

UNIT_FOLDER = Path(__file__).resolve().parent / "unit"
# fixtures that start a process or build a warehouse: no unit test asks for one
PROCESS_FIXTURES = frozenset(
    {"hostile_warehouse", "hostile_release", "small_synthetic_warehouse", "shared_gate", "compiled_models"}
)

SPARK_OUTCOMES: list[str] = []


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test with its tier, by its folder (see the module's docstring), and put the
    files holding Spark tests first: the Spark file is the suite's longest, so one worker starts
    it while the other runs the rest (pyproject.toml: one worker per core, each file on one)."""
    misplaced = []
    for item in items:
        if UNIT_FOLDER in item.path.parents:
            item.add_marker(pytest.mark.unit)
            used = sorted(PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())))
            if used or item.get_closest_marker("integration") is not None:
                misplaced.append(f"{item.nodeid} ({', '.join(used) or 'marked integration'})")
        else:
            item.add_marker(pytest.mark.integration)
    if misplaced:
        raise pytest.UsageError(
            f"{len(misplaced)} tests under tests/python/unit start a process or build a warehouse; "
            f"move them to tests/python/integration: {'; '.join(misplaced[:5])}"
        )
    spark_files = {item.path for item in items if item.get_closest_marker("spark") is not None}
    items.sort(key=lambda item: item.path not in spark_files)


@pytest.fixture(autouse=True)
def _a_unit_test_starts_no_process(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail a unit test that starts a process (subprocess.run and the like call Popen)."""
    if request.node.get_closest_marker("unit") is None:
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a unit test starts no process (move it to tests/python/integration): {args[:1]}")

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
