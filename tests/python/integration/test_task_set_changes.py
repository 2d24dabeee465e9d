"""Releases compared only where they compare: a release of 20 tasks built into a warehouse whose
previous release had 30 says so in one line, release_changes and headline_changes give no
difference and mark the change not comparable, history keeps the task ids and marks the
comparison, and the report says it in words. The counts of tasks added and removed are
computed here from the two releases' task files."""

from __future__ import annotations

import contextlib
import io
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from distressbench.outputs.report import write_report
from distressbench.publish.pipeline import build
from distressbench.settings import Settings
from distressbench.synth.config import SynthConfig
from distressbench.synth.generate import write_release
from fixtures.wording import WORDING


@dataclass(frozen=True)
class Built:
    wider: Path  # the release of 30 tasks
    narrower: Path  # the release of 20 tasks
    narrower_file: Path  # the warehouse file of the second build
    last_file: Path  # the third build: the 30-task release again
    printed: str  # what the second build printed


def _task_ids(release: Path) -> set[str]:
    return set(pq.read_table(release / "tasks.parquet", columns=["task_id"])["task_id"].to_pylist())


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("task-sets")
    wider = write_release(root / "wider", SynthConfig(n_tasks=30, n_models=3, redteam_transcripts=0))
    narrower = write_release(root / "narrower", SynthConfig(n_tasks=20, n_models=3, redteam_transcripts=0))
    warehouse = root / "warehouse" / "distressbench.duckdb"
    settings = Settings()
    build(wider, warehouse, settings)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        build(narrower, warehouse, settings)
    narrower_file = shutil.copyfile(warehouse.resolve(), root / "narrower.duckdb")
    build(wider, warehouse, settings)
    return Built(wider, narrower, narrower_file, warehouse.resolve(), printed.getvalue())


def _rows(database: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute(sql).fetchall()


def test_the_comparison_counts_the_tasks_added_and_removed(built: Built) -> None:
    wider, narrower = _task_ids(built.wider), _task_ids(built.narrower)
    added, removed = len(narrower - wider), len(wider - narrower)
    assert len(wider) == 30 and len(narrower) == 20 and removed > 0
    rows = _rows(
        built.narrower_file,
        "select n_tasks, previous_n_tasks, n_tasks_added, n_tasks_removed, is_task_set_known, is_comparable,"
        " not_comparable_reason from marts.release_comparison",
    )
    reason = f"the task sets differ: 20 tasks here, 30 in the previous release ({added} added, {removed} removed)"
    assert rows == [(20, 30, added, removed, True, False, reason)]
    notes = [line for line in built.printed.splitlines() if line.startswith("note: this release")]
    assert len(notes) == 1
    assert notes[0].startswith("note: this release's 20 tasks are not the previous release's 30 (")
    assert notes[0].endswith(f"{added} added, {removed} removed); changes against it are marked not comparable")


def test_changes_give_no_difference_and_say_why(built: Built) -> None:
    changes = _rows(
        built.narrower_file,
        "select status, score_difference, rank_change, not_comparable_reason from marts.release_changes",
    )
    assert changes and {status for status, *_ in changes} == {"not comparable"}
    assert all(difference is None and rank_change is None and reason for _, difference, rank_change, reason in changes)
    headline = _rows(
        built.narrower_file, "select value, previous_value, difference, is_comparable from marts.headline_changes"
    )
    assert headline and all(d is None and not comparable for _, _, d, comparable in headline)
    assert any(value is not None and previous is not None for value, previous, _, _ in headline)


def test_history_keeps_the_task_ids_and_marks_the_comparison(built: Built) -> None:
    tasks = _rows(built.last_file, "select release_id, count(*) from history.release_tasks group by all order by 2")
    assert [n for _, n in tasks] == [20, 30]
    marked = _rows(built.last_file, "select n_tasks, previous_n_tasks, is_comparable from history.release_comparison")
    assert marked == [(20, 30, False)]


def test_the_report_says_it_in_words(built: Built, tmp_path: Path) -> None:
    report = write_report(built.narrower_file, tmp_path / "report.html", WORDING).read_text(encoding="utf-8")
    assert "<strong>Not comparable:</strong> the task sets differ: 20 tasks here, 30 in the previous release" in report
