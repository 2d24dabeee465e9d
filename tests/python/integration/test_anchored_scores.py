"""The scores anchored to the clinicians in a built warehouse, against an independent
computation from the release's files: a small synthetic release in which one model keeps
only a few clinician labels and another none (as a new submission would)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from distressbench.publish.pipeline import build_release
from distressbench.settings import Settings
from distressbench.synth.config import SynthConfig
from distressbench.synth.generate import write_release
from fixtures.releases.writer import read_table, rewrite_table

FEW, NONE = "model-03", "model-04"
FEW_PAIRS = 20
MIN_PAIRS: int = Settings().var("anchored_min_pairs")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("anchored")
    release = write_release(root / "release", SynthConfig(n_tasks=40, n_models=4, calibration_fraction=0.3))
    responses = read_table(release, "responses").to_pandas()
    labels = read_table(release, "calibration_labels")
    model_of = labels["response_id"].to_pandas().map(responses.set_index("response_id")["model_id"])
    pair = labels["response_id"].to_pandas() + "|" + labels["criterion_id"].to_pandas()
    kept_few = set(pd.unique(pair[model_of == FEW])[:FEW_PAIRS])
    keep = ((model_of != FEW) | pair.isin(kept_few)) & (model_of != NONE)
    rewrite_table(release, "calibration_labels", labels.filter(pa.array(keep.to_numpy())))
    warehouse = root / "warehouse.duckdb"
    build_release(release, warehouse)
    return release, warehouse


def independent(release: Path) -> tuple[dict[str, float], dict[str, int]]:
    """Each model's anchored score and calibrated pairs, from the release's files alone: the
    mean cell score plus sum a (Y - f) / sum a over the calibrated pairs, a = weight / the
    task's weight total."""
    criteria = read_table(release, "criteria").to_pandas()
    responses = read_table(release, "responses").to_pandas()
    votes = read_table(release, "judge_labels").to_pandas().groupby(["response_id", "criterion_id"])["met"]
    votes = votes.agg(size="size", yes="sum").reset_index()
    pairs = responses.merge(criteria, on="task_id").merge(votes, on=["response_id", "criterion_id"])
    empty = pairs["content"].fillna("").str.strip().eq("")
    pairs["met"] = (2 * pairs["yes"] > pairs["size"]) & ~empty  # a tie is unmet
    pairs["share"] = pairs["weight"] / pairs.groupby("response_id")["weight"].transform("sum")
    pairs["met_share"] = pairs["share"] * pairs["met"]
    scores = pairs.groupby(["model_id", "task_id"])["met_share"].sum().groupby("model_id").mean()
    gold = read_table(release, "calibration_labels").to_pandas().groupby(["response_id", "criterion_id"])["met"]
    gold = gold.agg(n="size", yes="sum").reset_index()
    gold = gold[2 * gold["yes"] != gold["n"]].assign(gold=lambda g: 2 * g["yes"] > g["n"])
    calibrated = gold.merge(pairs, on=["response_id", "criterion_id"])
    calibrated["correction"] = calibrated["share"] * (calibrated["gold"].astype(float) - calibrated["met"])
    sums = calibrated.groupby("model_id")[["correction", "share"]].sum()
    anchored = (scores + sums["correction"] / sums["share"]).dropna().clip(0, 1)
    return anchored.to_dict(), calibrated.groupby("model_id").size().to_dict()


def test_anchored_scores_equal_the_independent_computation(built: tuple[Path, Path]) -> None:
    release, warehouse = built
    expected, n_pairs = independent(release)
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        rows = connection.execute(
            "select model_id, kind, n_clinician_pairs, anchored_score, anchored_ci_low, anchored_ci_high,"
            " anchored_null_reason from marts.model_anchored_scores"
        ).fetchall()
    assert len(rows) == 5
    for model_id, _kind, n, anchored, low, high, reason in rows:
        assert n == n_pairs.get(model_id, 0), model_id
        if model_id == NONE:
            assert n == 0 and anchored is None
            assert reason == "no clinician label on the replies of this model (e.g. a new submission)"
        elif model_id == FEW:
            assert 0 < n < MIN_PAIRS and anchored is None
            assert reason == f"fewer than {MIN_PAIRS} calibrated pairs (var anchored_min_pairs)"
        else:
            assert n >= MIN_PAIRS and reason is None
            assert anchored == pytest.approx(expected[model_id], abs=1e-12), model_id
            assert low <= anchored <= high


def test_anchored_headline_is_over_the_models_that_have_one(built: tuple[Path, Path]) -> None:
    release, warehouse = built
    expected, _ = independent(release)
    ranked = sorted(v for k, v in expected.items() if k.startswith("model-") and k not in (FEW, NONE))
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        headline = dict(
            connection.execute(
                "select metric, anchored_value from marts.anchored_headline_metrics"
                " where metric in ('best_model_score', 'median_model_score', 'clinician_reference_score')"
            ).fetchall()
        )
        (n_models,) = connection.execute(
            "select n_models from marts.anchored_headline_metrics where metric = 'best_model_score'"
        ).fetchone()
    assert n_models == len(ranked) == 2
    assert headline["best_model_score"] == pytest.approx(ranked[-1], abs=1e-12)
    assert headline["median_model_score"] == pytest.approx(sum(ranked) / 2, abs=1e-12)
    assert headline["clinician_reference_score"] == pytest.approx(expected["clinician-reference"], abs=1e-12)
