"""End to end: a release in, `distressbench build`, the published marts out, checked
against an independent pandas computation of every definition."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from distressbench import cli
from distressbench.synth.config import SynthConfig
from distressbench.synth.generate import write_release
from fixtures.independent_metrics import Metrics, compute
from fixtures.releases.hand_built import make_release
from fixtures.releases.writer import read_table, rewrite_table

TOLERANCE = 1e-9


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)):
        return a is None and b is None
    return abs(a - b) <= TOLERANCE


def _build(release: Path, warehouse: Path) -> duckdb.DuckDBPyConnection:
    assert cli.main(["build", str(release), "--warehouse", str(warehouse)]) == 0
    return duckdb.connect(str(warehouse), read_only=True)


def _assert_matches(connection: duckdb.DuckDBPyConnection, expected: Metrics) -> None:
    model_scores = dict(connection.sql("select model_id, score from marts.model_scores").fetchall())
    assert model_scores.keys() == expected.model_scores.keys()
    for model, score in expected.model_scores.items():
        assert _close(model_scores[model], score), model

    dimension_scores = {
        (m, d): s
        for m, d, s in connection.sql("select model_id, dimension, score from marts.dimension_scores").fetchall()
    }
    assert dimension_scores.keys() == expected.dimension_scores.keys()
    for key, score in expected.dimension_scores.items():
        assert _close(dimension_scores[key], score), key

    routing = {
        m: (r, n)
        for m, r, n in connection.sql(
            "select model_id, n_recognized, n_not_routed from marts.recognized_not_routed"
        ).fetchall()
    }
    assert routing == expected.recognized_not_routed

    calibration = {
        row[0]: dict(zip(("n", "agreement", "kappa", "precision", "recall", "f1"), row[1:], strict=False))
        for row in connection.sql(
            "select dimension, n, agreement, kappa, precision, recall, f1 from marts.judge_calibration where n > 0"
        ).fetchall()
    }
    assert calibration.keys() == expected.calibration.keys()
    for dimension, values in expected.calibration.items():
        for name, value in values.items():
            assert _close(calibration[dimension][name], value), (dimension, name)

    headline = dict(connection.sql("select metric, value from marts.headline_metrics").fetchall())
    assert headline.keys() == expected.headline.keys()
    for metric, value in expected.headline.items():
        assert _close(headline[metric], value), metric


@pytest.fixture(scope="module")
def tricky_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand-made fixture release (quotes, semicolons and Unicode in ids, judge ties, four
    ranked models, tasks without recognition or routing, an empty reply), with the empty
    reply's labels turned to 'met' to prove an empty reply meets nothing anyway."""
    release = make_release(tmp_path_factory.mktemp("tricky") / "release")
    responses = read_table(release, "responses").to_pandas()
    empty = set(responses.loc[responses["content"] == "", "response_id"])
    assert empty, "the fixture must hold an empty reply"
    labels = read_table(release, "judge_labels")
    met = [
        True if rid in empty else m
        for rid, m in zip(labels["response_id"].to_pylist(), labels["met"].to_pylist(), strict=False)
    ]
    rewrite_table(
        release, "judge_labels", labels.set_column(labels.schema.get_field_index("met"), "met", pa.array(met))
    )
    return release


def test_tricky_release_matches_the_independent_computation(tricky_release: Path, tmp_path: Path) -> None:
    with _build(tricky_release, tmp_path / "warehouse.duckdb") as connection:
        _assert_matches(connection, compute(tricky_release))
        (n_ties,) = connection.execute("select count(*) from marts.verdicts where n_met * 2 = n_labels").fetchone()
        assert n_ties > 0, "the fixture must exercise the tie rule"
        (n_ranked,) = connection.execute("select count(*) from marts.model_scores where kind = 'model'").fetchone()
        assert n_ranked % 2 == 0, "the fixture must exercise the even-count median"


def test_synthetic_release_matches_the_independent_computation(tmp_path: Path) -> None:
    release = write_release(tmp_path / "release", SynthConfig(seed=7, n_tasks=60, n_models=6))
    with _build(release, tmp_path / "warehouse.duckdb") as connection:
        _assert_matches(connection, compute(release))
        release_ids = connection.sql(
            "select distinct release_id from marts.headline_metrics "
            "union select distinct release_id from marts.cell_scores"
        ).fetchall()
        assert len(release_ids) == 1
        intervals = connection.execute(
            "select count(*) from marts.headline_metrics where not (ci_low <= value and value <= ci_high)"
        ).fetchone()
        assert intervals == (0,)
