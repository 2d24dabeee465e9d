"""Scores anchored to the clinicians (distressbench.stats.anchored): the estimator against
ppi_py, a hand-computed weighted fixture, the resampled intervals and the groups left null."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from ppi_py import ppi_mean_pointestimate

from distressbench.stats.anchored import AnchoredInputError, AnchoredResamples, anchored_values
from distressbench.stats.bootstrap.draws import ResampleCounts
from distressbench.stats.bootstrap.estimates import percentile_interval


def frames(scores: dict[str, list[float]], kinds: dict[str, str], pairs: list[tuple], dimension: str = "d1"):
    """cells and dimension_cells (one dimension holding every criterion) of models x tasks
    t000.., and the calibrated pairs (model, task, weight, task_weight, judge, gold)."""
    cells = pd.DataFrame(
        [
            {"model_id": m, "task_id": f"t{t:03d}", "kind": kinds[m], "score": s}
            for m, row in scores.items()
            for t, s in enumerate(row)
        ]
    )
    dimension_cells = cells[["model_id", "task_id", "score"]].assign(dimension=dimension)
    pair_frame = pd.DataFrame(
        [
            {
                "model_id": m,
                "task_id": t,
                "dimension": dimension,
                "weight": w,
                "task_weight": total,
                "dimension_weight": total,
                "is_judge_met": judge,
                "is_gold_met": gold,
            }
            for m, t, w, total, judge, gold in pairs
        ]
    )
    return cells, dimension_cells, pair_frame


def point_rows(cells, dimension_cells, pairs, *, min_pairs: int = 1) -> pd.DataFrame:
    resamples = AnchoredResamples(cells, dimension_cells, pairs, samples=1, min_pairs=min_pairs, by_dimension=True)
    resamples.add(np.ones((1, len(resamples.tasks))), resamples.tasks)
    return resamples.rows(0.05)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_unweighted_single_model_equals_ppi_py(seed: int) -> None:
    """One criterion of weight 1 per task: the anchored score is ppi_py's PPI mean (lambda 1)
    with the judge on every pair as the unlabelled predictions."""
    rng = np.random.default_rng(seed)
    n = 200
    judge = rng.random(n) < 0.7
    labelled = np.flatnonzero(rng.random(n) < 0.3)
    gold = judge[labelled] ^ (rng.random(len(labelled)) < 0.15)
    cells, dimension_cells, pairs = frames(
        {"m": judge.astype(float).tolist()},
        {"m": "model"},
        [("m", f"t{t:03d}", 1, 1, bool(judge[t]), bool(g)) for t, g in zip(labelled, gold, strict=True)],
    )
    rows = point_rows(cells, dimension_cells, pairs).set_index(["statistic", "dimension"], drop=False)
    expected = ppi_mean_pointestimate(gold.astype(float), judge[labelled].astype(float), judge.astype(float), lam=1)
    assert rows.loc[("anchored_score", None), "estimate"] == pytest.approx(float(expected[0]), abs=1e-12)
    assert rows.loc[("anchored_dimension_score", "d1"), "estimate"] == pytest.approx(float(expected[0]), abs=1e-12)
    assert rows.loc[("anchored_best_model_score", None), "estimate"] == pytest.approx(float(expected[0]), abs=1e-12)


def test_weighted_fixture_by_hand() -> None:
    """Three tasks, criteria of weight 1-3. Model A's judge scores 2/3, 1/2 and 1 (mean 13/18).
    Calibrated: t0's weight-2 criterion (of 3), judge met, clinicians unmet: D = -2/3, N = 2/3;
    t1's weight-1 criterion (of 2), judge unmet, clinicians met: D = +1/2, N = 1/2; t2's
    weight-3 criterion (of 4), both met: D = 0, N = 3/4. Correction = (-2/3 + 1/2) / (2/3 + 1/2
    + 3/4) = (-1/6) / (23/12) = -2/23; anchored = 13/18 - 2/23."""
    cells, dimension_cells, pairs = frames(
        {"A": [2 / 3, 1 / 2, 1.0], "B": [0.0, 0.0, 0.5], "ref": [1.0, 1.0, 1.0]},
        {"A": "model", "B": "model", "ref": "clinician_reference"},
        [
            ("A", "t000", 2, 3, True, False),
            ("A", "t001", 1, 2, False, True),
            ("A", "t002", 3, 4, True, True),
            ("ref", "t000", 1, 3, True, True),
        ],
    )
    rows = point_rows(cells, dimension_cells, pairs)
    anchored = rows.set_index(["statistic", "model_id"])["estimate"]
    assert anchored[("anchored_score", "A")] == pytest.approx(13 / 18 - 2 / 23, abs=1e-14)
    assert anchored[("anchored_clinician_reference_score", None)] == pytest.approx(1.0, abs=1e-14)
    # B has no calibrated pair: no anchored value, so A alone is best and median
    assert ("anchored_score", "B") not in anchored.index
    assert anchored[("anchored_best_model_score", None)] == pytest.approx(13 / 18 - 2 / 23, abs=1e-14)
    assert anchored[("anchored_median_model_score", None)] == pytest.approx(13 / 18 - 2 / 23, abs=1e-14)


def test_too_few_pairs_leave_the_model_out() -> None:
    cells, dimension_cells, pairs = frames(
        {"A": [0.5, 0.5], "B": [0.25, 0.75]},
        {"A": "model", "B": "model"},
        [("A", "t000", 1, 2, True, False), ("A", "t001", 1, 2, False, False), ("B", "t000", 1, 2, True, True)],
    )
    rows = point_rows(cells, dimension_cells, pairs, min_pairs=2)
    assert rows.loc[rows.statistic == "anchored_score", "model_id"].tolist() == ["A"]
    # A: 0.5 + (-1/2) / (1/2 + 1/2) = 0
    assert rows.loc[rows.statistic == "anchored_score", "estimate"].tolist() == [pytest.approx(0.0, abs=1e-15)]
    rows = point_rows(cells, dimension_cells, pairs, min_pairs=3)
    assert rows.empty


def test_intervals_follow_the_resamples_by_hand() -> None:
    """The interval is the percentile interval of the anchored value re-taken in each resample
    of the counts, as computed here from the per-task sums directly."""
    rng = np.random.default_rng(7)
    n, samples = 40, 300
    judge = rng.random((n, 3)) < 0.6
    weights = rng.integers(1, 4, size=(n, 3))
    scores = (weights * judge).sum(axis=1) / weights.sum(axis=1)
    gold = judge ^ (rng.random((n, 3)) < 0.2)
    labelled = rng.random((n, 3)) < 0.4
    pair_rows = [
        ("m", f"t{t:03d}", int(weights[t, c]), int(weights[t].sum()), bool(judge[t, c]), bool(gold[t, c]))
        for t in range(n)
        for c in range(3)
        if labelled[t, c]
    ]
    cells, dimension_cells, pairs = frames({"m": scores.tolist()}, {"m": "model"}, pair_rows)
    resamples = AnchoredResamples(cells, dimension_cells, pairs, samples=samples, min_pairs=1, by_dimension=True)
    counts = ResampleCounts(11, n, samples).take(samples)
    resamples.add(counts[:120], resamples.tasks)
    resamples.add(counts[120:], resamples.tasks)
    row = resamples.rows(0.1).set_index("statistic").loc["anchored_score"]

    share = weights / weights.sum(axis=1, keepdims=True)
    correction = (share * (gold.astype(float) - judge) * labelled).sum(axis=1)
    mass = (share * labelled).sum(axis=1)
    _, draws = anchored_values(counts @ scores, counts.sum(axis=1), counts @ correction, counts @ mass)
    low, high = percentile_interval(draws[:, None], 0.1)
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low[0], abs=1e-13), pytest.approx(high[0], abs=1e-13))
    _, point = anchored_values(scores.sum(), n, correction.sum(), mass.sum())
    assert row["estimate"] == pytest.approx(point, abs=1e-13)


def test_bad_input_names_the_table_and_examples() -> None:
    cells, dimension_cells, pairs = frames({"A": [0.5]}, {"A": "model"}, [("A", "t9", 1, 1, True, True)])
    message = r"calibration pairs: 1 row\(s\) whose task_id is not in cells; e.g. \['t9'\]"
    with pytest.raises(AnchoredInputError, match=message):
        AnchoredResamples(cells, dimension_cells, pairs, samples=1, min_pairs=1, by_dimension=True)
    resamples = AnchoredResamples(cells, dimension_cells, pairs.iloc[:0], samples=2, min_pairs=1, by_dimension=False)
    with pytest.raises(AnchoredInputError, match="0 of 2 resamples were added"):
        resamples.rows(0.05)


def test_estimates_are_cut_to_the_unit_interval() -> None:
    """Clinicians who call met every calibrated pair the judge calls unmet can carry the
    estimate past 1; it is cut there."""
    cells, dimension_cells, pairs = frames(
        {"A": [0.9, 0.9]},
        {"A": "model"},
        [("A", "t000", 1, 10, False, True), ("A", "t001", 1, 10, False, True)],
    )
    rows = point_rows(cells, dimension_cells, pairs)
    # 0.9 + (1/10 + 1/10) / (1/10 + 1/10) = 1.9, cut to 1
    assert rows.set_index("statistic").loc["anchored_score", "estimate"] == 1.0


def test_without_dimensions_the_model_rows_are_the_same() -> None:
    cells, dimension_cells, pairs = frames(
        {"A": [2 / 3, 1 / 2, 1.0], "B": [0.25, 0.5, 0.5]},
        {"A": "model", "B": "model"},
        [("A", "t000", 2, 3, True, False), ("A", "t001", 1, 2, False, True), ("B", "t002", 1, 2, True, True)],
    )
    rows = {}
    for by_dimension in (True, False):
        resamples = AnchoredResamples(cells, dimension_cells, pairs, samples=50, min_pairs=1, by_dimension=by_dimension)
        counts = ResampleCounts(3, len(resamples.tasks), 50).take(50)
        resamples.add(counts, resamples.tasks)
        rows[by_dimension] = resamples.rows(0.05)
    assert rows[False]["dimension"].isna().all() and rows[True]["dimension"].notna().any()
    overall = rows[True][rows[True]["dimension"].isna()].reset_index(drop=True)
    columns = ["statistic", "model_id", "estimate", "ci_low", "ci_high"]
    pd.testing.assert_frame_equal(rows[False][columns], overall[columns], check_dtype=False)


def test_a_release_without_calibrated_pairs_gives_no_anchored_rows() -> None:
    """As the build reads them: ids as categoricals, which an empty table leaves untyped."""
    cells, dimension_cells, pairs = frames({"A": [0.5, 1.0]}, {"A": "model"}, [("A", "t000", 1, 2, True, True)])
    empty = pa.Table.from_pandas(pairs.iloc[:0], preserve_index=False).to_pandas(strings_to_categorical=True)
    assert point_rows(cells, dimension_cells, empty).empty


def test_an_unranked_model_moves_no_anchored_headline() -> None:
    """A model shown unranked (is_ranked false: judged otherwise) keeps its own anchored score
    but is left out of the anchored best and median, which are those of the ranked models.
    Judge met everywhere; the clinicians agree on A's pairs and disagree on B's: A anchors
    at 1, B at 0; with B ranked too the median would be 1/2."""
    pairs = [(m, f"t{t:03d}", 1, 1, True, m == "A") for m in ("A", "B") for t in range(3)]
    cells, dimension_cells, pair_frame = frames({"A": [1.0] * 3, "B": [1.0] * 3}, {"A": "model", "B": "model"}, pairs)
    ranked = cells.assign(is_ranked=cells["model_id"] == "A")
    rows = point_rows(ranked, dimension_cells, pair_frame).set_index(["statistic", "model_id"], drop=False)
    assert rows.loc[("anchored_score", "B"), "estimate"] == pytest.approx(0.0, abs=1e-12)
    assert rows.loc[("anchored_best_model_score", None), "estimate"] == pytest.approx(1.0, abs=1e-12)
    assert rows.loc[("anchored_median_model_score", None), "estimate"] == pytest.approx(1.0, abs=1e-12)
    every = point_rows(cells, dimension_cells, pair_frame).set_index(["statistic", "model_id"], drop=False)
    assert every.loc[("anchored_median_model_score", None), "estimate"] == pytest.approx(0.5, abs=1e-12)
