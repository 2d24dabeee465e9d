"""Every shape the contract allows builds and equals the independent computation.

fixtures/releases/shapes.py has each optional or degenerate part of a release alone (SHAPES)
and three releases that hold all of them (BUILT: all that go together, and the two sets
that exclude them). Each BUILT release is built end to end with `build_release` once per
session and compared mart by mart with fixtures/independent_metrics.py; each shape alone
runs through the same SQL on DuckDB directly (the models compiled once per session,
fixtures/compiled_models.py), with no build of its own, since a build takes tens of seconds.
Then the parts a shape is about are checked where the warehouse shows them: undefined
metrics are present, null and say why, empty marts are empty, and the report says what a
missing part means instead of showing blanks.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from distressbench.outputs.report import write_report
from distressbench.outputs.tables.load import load_tables
from distressbench.outputs.tables.table import Table
from distressbench.publish.pipeline import build_release
from fixtures.compiled_models import COMPILED_MARTS, CompiledModels
from fixtures.independent_metrics import compute
from fixtures.releases.shapes import BUILT, SHAPES, STAND_IN, Shape, write_shape_release
from fixtures.warehouse_comparison import assert_marts_match, assert_scores_match
from fixtures.wording import WORDING

BY_NAME: dict[str, Shape] = {shape.name: shape for shape in (*SHAPES, *BUILT)}
NO_CRITERION = "no criterion of this dimension in the release"
Built = Callable[[str], tuple[Path, Path]]


@pytest.fixture(scope="session")
def shape_build(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """name -> (release folder, published warehouse) of that BUILT shape, built once per session."""
    built: dict[str, tuple[Path, Path]] = {}

    def get(name: str) -> tuple[Path, Path]:
        if name not in built:
            root = tmp_path_factory.mktemp(f"shape-{name}")
            release = write_shape_release(root / "release", BY_NAME[name])
            warehouse = root / "warehouse.duckdb"
            build_release(release, warehouse)
            built[name] = (release, warehouse)
        return built[name]

    return get


def _connect(warehouse: Path) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(warehouse), read_only=True)


def _table(release: Path, name: str) -> list[dict[str, object]]:
    return pq.read_table(release / f"{name}.parquet").to_pylist()


@functools.cache
def _report(warehouse: Path) -> str:
    """The report of a built shape (written once: its figures take seconds)."""
    return write_report(warehouse, warehouse.parent / "report.html", WORDING).read_text(encoding="utf-8")


def _tables(warehouse: Path) -> dict[str, Table]:
    with _connect(warehouse) as connection:
        return {t.spec.key: t for t in load_tables(connection, WORDING)}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_each_shape_alone_runs_the_sql_to_the_independent_computation(
    shape: Shape, compiled_models: CompiledModels, tmp_path: Path
) -> None:
    release = write_shape_release(tmp_path / "release", shape)
    compiled_models.relink(release)
    compiled_models.run(COMPILED_MARTS)
    with _connect(compiled_models.database) as connection:
        assert_scores_match(connection, compute(release))


@pytest.mark.parametrize("shape", BUILT, ids=lambda s: s.name)
def test_each_built_shape_equals_the_independent_computation(shape: Shape, shape_build: Built) -> None:
    release, warehouse = shape_build(shape.name)
    with _connect(warehouse) as connection:
        assert_marts_match(connection, compute(release))
        # every registered headline metric has a row; a null one says why, a defined one does not
        unexplained = connection.execute(
            "select metric from marts.headline_metrics where (value is null) != (undefined_reason is not null)"
        ).fetchall()
        assert unexplained == []


def test_a_dimension_without_criteria_is_present_and_undefined(shape_build: Built) -> None:
    release, warehouse = shape_build("all_at_once")
    absent = set(BY_NAME["all_at_once"].absent)
    assert absent == {"routing", "de_escalation"}
    assert not absent & {row["dimension"] for row in _table(release, "criteria")}
    with _connect(warehouse) as connection:
        rows = connection.execute(
            "select metric, value, ci_low, ci_high, undefined_reason from marts.headline_metrics "
            "where undefined_reason is not null"
        ).fetchall()
        summary = connection.execute(
            "select dimension, n_tasks, n_models, best_score, median_score from marts.dimension_summary"
        ).fetchall()
        rates = connection.execute("select n_recognized, rate from marts.recognized_not_routed").fetchall()
    undefined = {metric: (value, low, high, reason) for metric, value, low, high, reason in rows}
    for dimension in absent:
        for metric in (f"best_{dimension}_score", f"median_{dimension}_score"):
            assert undefined[metric] == (None, None, None, NO_CRITERION)
    assert len(summary) == 7
    assert {d for d, n, *_ in summary if n == 0} == absent
    assert all(scores == [0, None, None] for _, n, *scores in summary if n == 0)
    # no routing criterion: the pooled rate (and every model's) is undefined, with the reason
    assert undefined["recognized_not_routed_rate"][3] == "no routing criterion in the release"
    assert rates and all(r == (0, None) for r in rates)
    # the paper table and the report say why instead of a bare blank
    paper = _tables(warehouse)["P"]
    notes = {row["metric"]: row["note"] for row in paper.records()}
    assert notes["best_routing_score"] == NO_CRITERION and notes["best_model_score"] == ""
    assert any(NO_CRITERION in cell for row in paper.cells() for cell in row)
    report = _report(warehouse)
    for label in ("De-escalation", "Routing to human help"):
        assert f"No criterion of the dimension {label} in this release: its scores are undefined (—)." in report
    assert "The recognized-but-not-routed rate is undefined: no routing criterion in the release." in report


def test_no_calibration_labels_leave_calibration_undefined_and_say_so(shape_build: Built) -> None:
    release, warehouse = shape_build("all_at_once")
    assert _table(release, "calibration_labels") == []
    with _connect(warehouse) as connection:
        calibration = connection.execute(
            "select n, kappa, meets_calibration_floor from marts.judge_calibration"
        ).fetchall()
        by_model = connection.execute("select distinct n, kappa from marts.judge_calibration_by_model").fetchall()
        (reason,) = connection.execute(
            "select undefined_reason from marts.headline_metrics where metric = 'judge_kappa' and value is null"
        ).fetchone()
    assert len(calibration) == 8 and set(calibration) == {(0, None, False)}
    assert by_model == [(0, None)]
    assert reason == "no clinician labels in this release: judge calibration is undefined"
    # with tables T7, J1 and J4
    assert _report(warehouse).count("No clinician labels in this release: judge calibration is undefined.") == 3


def test_clinician_ties_on_every_pair_leave_calibration_undefined(shape_build: Built) -> None:
    _, warehouse = shape_build("one_ranked_model_at_once")
    with _connect(warehouse) as connection:
        n, ties = connection.execute(
            "select n, n_ties_dropped from marts.judge_calibration where dimension = 'all'"
        ).fetchone()
        (reason,) = connection.execute(
            "select undefined_reason from marts.headline_metrics where metric = 'judge_kappa'"
        ).fetchone()
    assert n == 0 and ties > 0
    assert reason == "every calibrated pair is a clinician tie"
    assert "Every calibrated pair is a clinician tie: judge calibration is undefined." in _report(warehouse)


def test_no_annex_builds_an_empty_annex_and_the_report_says_so(shape_build: Built) -> None:
    release, warehouse = shape_build("all_at_once")
    assert not (release / "redteam_transcripts.parquet").exists()
    with _connect(warehouse) as connection:
        assert connection.execute("select count(*) from marts.redteam_summary").fetchone() == (0,)
    report = _report(warehouse)
    annex = report[report.index('id="sec-annex"') :]
    assert "This release has no red-team annex (no transcripts): the table is empty." in annex
    assert "No rows in this release." not in annex  # the note replaces the empty table


def test_criteria_at_the_bounds_every_label_count_and_several_judges(shape_build: Built) -> None:
    _, warehouse = shape_build("all_at_once")
    with _connect(warehouse) as connection:
        per_task = {n for (n,) in connection.execute("select distinct n_criteria from marts.cell_scores").fetchall()}
        counts = {n for (n,) in connection.execute("select distinct n_labels from marts.verdicts").fetchall()}
        (ties,) = connection.execute("select count(*) from marts.verdicts where 2 * n_met = n_labels").fetchone()
        judges = {
            j for (j,) in connection.execute("select distinct judge_id from marts.judge_agreement_by_judge").fetchall()
        }
        (empty_met,) = connection.execute(
            "select count(*) from marts.verdicts where is_empty_reply and is_met"
        ).fetchone()
        (n_empty,) = connection.execute("select count(*) from marts.verdicts where is_empty_reply").fetchone()
        subcategories = connection.execute("select count(distinct subcategory) from marts.cell_scores").fetchone()
        weights = connection.execute("select distinct weight from marts.verdicts").fetchall()
    assert {6, 20} <= per_task and per_task <= set(range(6, 21))
    assert counts == {1, 2, 3, 4} and ties > 0
    assert {"judge-llm", "rule-scorer", "adjudicator"} <= judges
    assert n_empty > 0 and empty_met == 0
    assert subcategories == (12,)
    assert weights == [(1,)]


def test_one_ranked_model_is_best_and_median_and_the_report_says_so(shape_build: Built) -> None:
    _, warehouse = shape_build("one_ranked_model_at_once")
    with _connect(warehouse) as connection:
        ranked = connection.execute("select score, rank from marts.model_scores where kind = 'model'").fetchall()
        headline = dict(
            connection.execute(
                "select metric, value from marts.headline_metrics "
                "where metric in ('best_model_score', 'median_model_score')"
            ).fetchall()
        )
        pairs = connection.execute("select count(*) from marts.model_pair_differences").fetchone()
        taus = connection.execute("select distinct kendall_tau_b from marts.ranking_sensitivity").fetchall()
    assert len(ranked) == 1 and ranked[0][1] == 1
    assert headline == {"best_model_score": ranked[0][0], "median_model_score": ranked[0][0]}
    assert pairs == (0,) and taus == [(None,)]
    assert _report(warehouse).count("One ranked model in this release") == 2


def test_one_label_per_pair_and_single_turn_tasks_only(shape_build: Built) -> None:
    _, warehouse = shape_build("the_other_parts")
    with _connect(warehouse) as connection:
        undefined = dict(
            connection.execute(
                "select metric, undefined_reason from marts.headline_metrics where value is null"
            ).fetchall()
        )
        models = connection.execute("select count(*) from marts.model_scores where kind = 'model'").fetchone()
        (calibrated,) = connection.execute("select n from marts.judge_calibration where dimension = 'all'").fetchone()
    assert undefined == {
        "judge_alpha": "no pair of a non-empty reply has two or more labels of the primary judge",
        "multi_turn_score": "no multi-turn task in the release",
        "multi_minus_single": "the release lacks single-turn or multi-turn tasks",
    }
    assert models == (5,) and calibrated > 0
    report = _report(warehouse)
    assert "Undefined: no multi-turn task in the release." in report
    assert report.count("the judge&#x27;s self-consistency is undefined.") == 2


def test_a_stand_in_reference_is_scored_beside_the_models(shape_build: Built) -> None:
    release, warehouse = shape_build("all_at_once")
    assert {row["reference_response"] for row in _table(release, "tasks")} == {STAND_IN}
    with _connect(warehouse) as connection:
        (reference,) = connection.execute(
            "select score from marts.model_scores where kind = 'clinician_reference' and rank is null"
        ).fetchone()
        (worst,) = connection.execute("select min(score) from marts.model_scores where kind = 'model'").fetchone()
    assert reference < worst
