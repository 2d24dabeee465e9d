"""End to end: submit a model to a release, build, and keep every release's results in history.

The fixture release is split into a base without model 2 and a submission of model 2. One
new warehouse publishes the base, then the release `submit` derives from base + submission,
then the original release under its own id: the derived release must give model 2 exactly
what the original gives it, the history must hold every earlier release, and release_changes
must say what changed.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from distressbench.outputs.report import write_report
from distressbench.publish.history import history_tables
from distressbench.publish.pipeline import build_release
from distressbench.settings import Settings
from distressbench.submit import submit
from fixtures.releases.hand_built import CLINICIAN_ID, MODEL_IDS, make_release
from fixtures.releases.submission import split_release
from fixtures.wording import WORDING

SUBMITTED = MODEL_IDS[1]
SCORE_COLUMNS = "model_id, kind, n_tasks, rank, letters, rank_upper_bound, score, ci_low, ci_high"
TOLERANCE = 1e-12  # computed differences; the marts themselves are equal bit for bit (test below)


@dataclass(frozen=True)
class Built:
    base: Path  # (a copy of) the warehouse's first file: the base release, published into a fresh warehouse
    derived: Path  # (a copy of) its second file: base + submission
    original: Path  # its third file: the original release
    base_id: str
    derived_id: str
    warehouse: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("history")
    original = make_release(root / "original", release_id="fixture-original")
    split_release(original, SUBMITTED, root / "base", root / "submission", base_id="fixture-base")
    derived = submit(root / "base", root / "submission", root / "derived", echo=False)
    warehouse = root / "warehouse" / "warehouse.duckdb"
    # the builds folder keeps only the newest earlier file: keep copies to read afterwards
    base_file = shutil.copyfile(build_release(root / "base", warehouse)[0], root / "base.duckdb")
    derived_file = shutil.copyfile(build_release(root / "derived", warehouse)[0], root / "derived.duckdb")
    original_file, _ = build_release(original, warehouse)
    return Built(base_file, derived_file, original_file, "fixture-base", derived.release_id, warehouse)


def _rows(database: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute(sql).fetchall()


def _assert_close(got: list[tuple[object, ...]], want: list[tuple[object, ...]], n_exact: int) -> None:
    """Rows equal: the first n_exact fields exactly, the others (floats) within TOLERANCE."""
    assert [r[:n_exact] for r in got] == [r[:n_exact] for r in want]
    for g, w in zip(got, want, strict=True):
        for a, b in zip(g[n_exact:], w[n_exact:], strict=True):
            assert (a is None and b is None) or abs(a - b) <= TOLERANCE, (g, w)


def test_the_submitted_model_scores_as_in_the_original_release(built: Built) -> None:
    """Same models, tasks and labels give the same scores, intervals, ranks, letters and rank bounds,
    though the derived release holds its rows in another order."""
    query = f"select {SCORE_COLUMNS} from marts.model_scores order by model_id"
    expected, derived = _rows(built.original, query), _rows(built.derived, query)
    assert SUBMITTED in [r[0] for r in derived]
    _assert_close(derived, expected, n_exact=6)
    dimensions = "select model_id, dimension, n_tasks, score from marts.dimension_scores order by all"
    _assert_close(_rows(built.derived, dimensions), _rows(built.original, dimensions), n_exact=3)
    headline = "select metric, value, ci_low, ci_high from marts.headline_metrics order by metric"
    _assert_close(_rows(built.derived, headline), _rows(built.original, headline), n_exact=1)


def test_the_same_inputs_give_the_same_marts_bit_for_bit(built: Built) -> None:
    for table, key in (
        ("model_scores", "model_id"),
        ("dimension_scores", "model_id, dimension"),
        ("headline_metrics", "metric"),
        ("turn_type_scores", "model_id, turn_type"),
    ):
        query = f"select * exclude (release_id) from marts.{table} order by {key}"
        assert _rows(built.derived, query) == _rows(built.original, query), table
    differences = _rows(built.derived, "select score_difference from marts.release_changes where status <> 'new'")
    assert differences and all(d == (0.0,) for d in differences)


def test_a_fresh_warehouse_has_empty_history_tables(built: Built) -> None:
    for table in history_tables(Settings()):
        assert _rows(built.base, f"select count(*) from history.{table}") == [(0,)], table
    assert _rows(built.base, "select count(*) from marts.release_changes") == [(0,)]
    assert _rows(built.base, "select count(*) from marts.headline_changes") == [(0,)]


def test_history_holds_every_release_published_before(built: Built) -> None:
    published = dict(_rows(built.original, "select release_id, published_at from meta.published_releases"))
    releases = _rows(built.original, "select release_id, published_at from history.releases order by published_at")
    assert releases == [(built.base_id, published[built.base_id]), (built.derived_id, published[built.derived_id])]
    assert _rows(built.derived, "select release_id from history.releases") == [(built.base_id,)]
    for release_id, own_file in ((built.base_id, built.base), (built.derived_id, built.derived)):
        for table in ("model_scores", "headline_metrics", "dimension_scores"):
            columns = ", ".join(c for c in history_tables(Settings())[table] if c != "published_at")
            carried = _rows(
                built.original, f"select {columns} from history.{table} where release_id = '{release_id}' order by all"
            )
            own = _rows(own_file, f"select {columns} from marts.{table} order by all")
            assert carried == own and own, (release_id, table)
            stamps = _rows(
                built.original, f"select distinct published_at from history.{table} where release_id = '{release_id}'"
            )
            assert stamps == [(published[release_id],)]


def test_release_changes_marks_the_submitted_model_new(built: Built) -> None:
    rows = _rows(
        built.derived,
        "select model_id, previous_release_id, status, score_difference, ci_low, ci_high, previous_ci_low,"
        " previous_ci_high, rank, previous_rank, rank_change, letters, previous_letters, rank_upper_bound,"
        " previous_rank_upper_bound from marts.release_changes",
    )
    changes = {r[0]: r[1:] for r in rows}
    assert set(changes) == set(MODEL_IDS) | {CLINICIAN_ID}
    assert {r[0] for r in changes.values()} == {built.base_id}
    new = changes.pop(SUBMITTED)
    assert new[1] == "new" and new[2] is None and new[5:7] == (None, None) and new[8:10] == (None, None)
    new_rank = new[7]
    for model, (
        _,
        status,
        difference,
        low,
        high,
        previous_low,
        previous_high,
        rank,
        previous_rank,
        rank_change,
        letters,
        previous_letters,
        bound,
        previous_bound,
    ) in changes.items():
        # score and interval as before; the status also reads the letters and the rank bound,
        # which the new model can move (it may be clearly better, or rename the letters below it)
        same = (letters, bound) == (previous_letters, previous_bound)
        assert status == ("unchanged" if same else "changed"), model
        assert (letters is None) == (model == CLINICIAN_ID) and (previous_letters is None) == (model == CLINICIAN_ID)
        assert abs(difference) <= TOLERANCE, model
        assert abs(low - previous_low) <= TOLERANCE and abs(high - previous_high) <= TOLERANCE, model
        if model == CLINICIAN_ID:
            assert rank is None and previous_rank is None
            continue
        assert rank == previous_rank + (1 if rank > new_rank else 0), model
        assert rank_change == previous_rank - rank, model
    headline = _rows(
        built.derived,
        "select metric, previous_release_id, value, previous_value, difference from marts.headline_changes",
    )
    metrics = _rows(built.derived, "select metric from marts.headline_metrics")
    assert sorted(r[0] for r in headline) == sorted(m for (m,) in metrics)
    for metric, previous_id, value, previous_value, difference in headline:
        assert previous_id == built.base_id
        assert difference == value - previous_value, metric


def test_the_same_models_in_another_row_order_are_unchanged(built: Built) -> None:
    """The original release after the derived one: same data, rows in another order."""
    rows = _rows(
        built.original, "select previous_release_id, status, score_difference, rank_change from marts.release_changes"
    )
    assert len(rows) == len(MODEL_IDS) + 1
    for previous_id, status, difference, rank_change in rows:
        assert (previous_id, status) == (built.derived_id, "unchanged")
        assert abs(difference) <= TOLERANCE and rank_change in (0, None)


def test_the_report_says_what_changed_since_the_previous_release(built: Built, tmp_path: Path) -> None:
    changed = write_report(built.warehouse, tmp_path / "changed.html", WORDING).read_text(encoding="utf-8")
    assert f"Changes since {built.derived_id}</h2>" in changed
    assert "Models against the previous release" in changed
    first = write_report(built.base, tmp_path / "first.html", WORDING).read_text(encoding="utf-8")
    assert "There is no previous release" in first
    assert "Models against the previous release" not in first
