"""The task bootstrap of judge_alpha (distressbench.stats.agreement) and the per-model
calibration intervals (CalibrationResamples(by='model_id')), each against a computation
written here: resample counts are given by hand, every resample's units (or pairs) are
repeated by their task's count, and the statistic is recomputed from the repeated rows."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from distressbench.stats import calibration
from distressbench.stats.agreement import AgreementInputError, AlphaResamples
from distressbench.stats.calibration import CalibrationInputError, CalibrationResamples

TASKS = pd.Series(["t-3", "t-1'", "t-2", "t-4;"], dtype="str")  # unsorted on purpose; t-4; has no unit
UNITS = {  # task -> the labels (1 = met) of each of its units
    "t-1'": [[1, 1, 0], [0, 0, 0]],
    "t-2": [[1, 0], [1, 1, 1, 1]],
    "t-3": [[0, 1, 1]],
}
# resample rows over the tasks in code-point order: t-1', t-2, t-3, t-4;
COUNTS = np.array(
    [
        [1, 1, 1, 1],
        [2, 0, 1, 1],
        [0, 3, 0, 1],
        [0, 0, 0, 4],  # no unit drawn: alpha undefined
        [1, 0, 2, 1],
        [0, 1, 2, 1],
    ],
    dtype=np.float64,
)
ORDER = np.array(sorted(TASKS), dtype=object)


def _kinds(units: dict[str, list[list[int]]]) -> pd.DataFrame:
    """int_judge_alpha_task_units' shape: one row per (task_id, n_labels, n_met)."""
    kinds = Counter((task, len(labels), sum(labels)) for task, rows in units.items() for labels in rows)
    rows = [(task, n, m, k) for (task, n, m), k in sorted(kinds.items())]
    return pd.DataFrame(rows, columns=["task_id", "n_labels", "n_met", "n_units"])


def _coincidence_alpha(units: list[list[int]]) -> float:
    """Krippendorff's alpha (nominal) from its coincidence matrix: every ordered pair of labels
    of a unit adds 1 / (n - 1); alpha = 1 - D_o / D_e."""
    o = np.zeros((2, 2))
    for labels in units:
        for a, b in itertools.permutations(labels, 2):
            o[a, b] += 1 / (len(labels) - 1)
    n_c = o.sum(axis=1)
    total = n_c.sum()
    expected = (n_c[0] * n_c[1] * 2) / (total * (total - 1)) if total > 1 else 0.0
    if expected == 0:
        return math.nan
    observed = (o[0, 1] + o[1, 0]) / total
    return 1 - observed / expected


def _resampled_units(row: np.ndarray) -> list[list[int]]:
    drawn = [(task, int(count)) for task, count in zip(ORDER, row, strict=True)]
    return [labels for task, count in drawn for _ in range(count) for labels in UNITS.get(task, [])]


def test_alpha_estimate_is_the_hand_computed_value() -> None:
    # N = 15 labels, N1 = 9 met, D = 1 + 0 + 1 + 0 + 1 = 3: alpha = 1 - 14 * 3 / (6 * 9) = 2/9
    resamples = AlphaResamples(TASKS, _kinds(UNITS), samples=1)
    assert resamples.estimate() == pytest.approx(2 / 9, abs=1e-15)
    assert _coincidence_alpha([u for rows in UNITS.values() for u in rows]) == pytest.approx(2 / 9, abs=1e-15)


def test_alpha_interval_matches_recomputing_each_resample() -> None:
    draws = np.array([_coincidence_alpha(_resampled_units(row)) for row in COUNTS])
    assert np.isnan(draws[3]) and np.isfinite(np.delete(draws, 3)).all()
    defined = np.sort(draws[~np.isnan(draws)])
    for alpha in (0.05, 0.5):
        # type 7 by hand: position (n - 1) * q between the sorted defined values
        expected = []
        for q in (alpha / 2, 1 - alpha / 2):
            h = (len(defined) - 1) * q
            lo = math.floor(h)
            expected.append(defined[lo] + (h - lo) * (defined[min(lo + 1, len(defined) - 1)] - defined[lo]))
        for chunks in ([6], [2, 4], [1, 1, 1, 1, 1, 1]):
            resamples = AlphaResamples(TASKS, _kinds(UNITS), samples=len(COUNTS))
            start = 0
            for size in chunks:
                resamples.add(COUNTS[start : start + size], ORDER)
                start += size
            assert resamples.interval(alpha) == pytest.approx(tuple(expected), abs=1e-12), (alpha, chunks)


def test_alpha_is_nan_when_undefined_in_every_resample() -> None:
    unanimous = {"t-1'": [[1, 1]], "t-2": [[1, 1, 1]]}
    resamples = AlphaResamples(TASKS, _kinds(unanimous), samples=2)
    resamples.add(COUNTS[:2], ORDER)
    assert math.isnan(resamples.estimate())
    assert all(math.isnan(v) for v in resamples.interval(0.05))


@pytest.mark.parametrize(
    ("units", "message"),
    [
        (pd.DataFrame({"task_id": ["t-9"], "n_labels": [2], "n_met": [1], "n_units": [1]}), "1 row(s) whose task_id"),
        (pd.DataFrame({"task_id": ["t-2"], "n_labels": [2], "n_met": [3], "n_units": [1]}), "n_met outside"),
        (pd.DataFrame({"task_id": ["t-2"], "n_labels": [1], "n_met": [1], "n_units": [1]}), "n_labels < 2"),
        (pd.DataFrame({"task_id": ["t-2"], "n_labels": [2], "n_met": [None], "n_units": [1]}), "column 'n_met'"),
        (pd.DataFrame({"task_id": ["t-2"], "n_labels": [2], "n_met": [1]}), "missing column(s) n_units"),
    ],
)
def test_alpha_refuses_bad_units_by_name(units: pd.DataFrame, message: str) -> None:
    with pytest.raises(AgreementInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        AlphaResamples(TASKS, units, samples=1)


def test_alpha_refuses_counts_over_other_tasks_and_missing_resamples() -> None:
    resamples = AlphaResamples(TASKS, _kinds(UNITS), samples=3)
    with pytest.raises(AgreementInputError, match="must resample every task"):
        resamples.add(COUNTS[:1, :3], ORDER[:3])
    resamples.add(COUNTS[:2], ORDER)
    with pytest.raises(AgreementInputError, match="2 of 3 resamples"):
        resamples.interval(0.05)


# --------------------------------------------------------------------------- calibration by model

PAIRS = pd.DataFrame(
    [  # task_id, model_id, dimension, judge met, gold met
        ("t-1'", "m-a", "routing", True, True),
        ("t-1'", "m-a", "routing", False, True),
        ("t-1'", "m-b'", "routing", True, False),
        ("t-2", "m-a", "validation", False, False),
        ("t-2", "m-b'", "validation", True, True),
        ("t-2", "m-b'", "routing", False, False),
        ("t-3", "m-a", "routing", True, True),
        ("t-3", "m-b'", "validation", False, True),
    ],
    columns=["task_id", "model_id", "dimension", "is_judge_met", "is_gold_met"],
)


def _naive_statistics(rows: pd.DataFrame, weights: pd.Series) -> tuple[float, float, float]:
    j, g, w = rows["is_judge_met"], rows["is_gold_met"], weights
    tp, fp = float(w[j & g].sum()), float(w[j & ~g].sum())
    fn, tn = float(w[~j & g].sum()), float(w[~j & ~g].sum())
    n = tp + fp + fn + tn
    if n == 0:
        return math.nan, math.nan, math.nan
    agreement = (tp + tn) / n
    chance = ((tp + fp) / n) * ((tp + fn) / n) + ((fn + tn) / n) * ((fp + tn) / n)
    kappa = math.nan if chance == 1 else (agreement - chance) / (1 - chance)
    f1 = math.nan if 2 * tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)
    return agreement, kappa, f1


@pytest.mark.parametrize("sparse_below", [0.0, 1.01], ids=["dense", "sparse"])
def test_calibration_by_model_matches_recomputing_each_resample(
    sparse_below: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(calibration, "SPARSE_BELOW", sparse_below)
    resamples = CalibrationResamples(TASKS, PAIRS, samples=len(COUNTS), by="model_id")
    resamples.add(COUNTS[:4], ORDER)
    resamples.add(COUNTS[4:], ORDER)
    assert isinstance(resamples._design, np.ndarray) == (sparse_below == 0.0)
    out = resamples.intervals(0.1).set_index(["model_id", "dimension"])
    groups = [(m, d) for m in ("m-a", "m-b'") for d in ("all", "routing", "validation")]
    assert sorted(out.index) == sorted(groups)
    for model, dimension in groups:
        chosen = PAIRS[(PAIRS["model_id"] == model) & ((dimension == "all") | (PAIRS["dimension"] == dimension))]
        draws = np.array(
            [_naive_statistics(chosen, chosen["task_id"].map(dict(zip(ORDER, row, strict=True)))) for row in COUNTS]
        )
        for i, name in enumerate(("agreement", "kappa", "f1")):
            values = draws[:, i][~np.isnan(draws[:, i])]
            got = out.loc[(model, dimension), [f"{name}_ci_low", f"{name}_ci_high"]].to_numpy(dtype=float)
            if len(values) == 0:
                assert np.isnan(got).all(), (model, dimension, name)
            else:
                expected = np.quantile(values, [0.05, 0.95], method="linear")
                assert got == pytest.approx(expected, abs=1e-12), (model, dimension, name)


def test_calibration_by_model_keeps_models_apart_from_the_pooled_intervals() -> None:
    pooled = CalibrationResamples(TASKS, PAIRS, samples=len(COUNTS))
    one_model = CalibrationResamples(TASKS, PAIRS.assign(model_id="only"), samples=len(COUNTS), by="model_id")
    for resamples in (pooled, one_model):
        resamples.add(COUNTS, ORDER)
    with_one_model = one_model.intervals(0.05)
    assert list(with_one_model.columns[:2]) == ["model_id", "dimension"]
    assert (with_one_model["model_id"] == "only").all()
    pd.testing.assert_frame_equal(with_one_model.drop(columns="model_id"), pooled.intervals(0.05))


def test_calibration_by_model_refuses_a_null_model_by_name() -> None:
    pairs = PAIRS.astype({"model_id": object})
    pairs.loc[2, "model_id"] = None
    with pytest.raises(CalibrationInputError, match=r"1 null value\(s\) in column 'model_id'"):
        CalibrationResamples(TASKS, pairs, samples=1, by="model_id")


def test_calibration_by_model_without_pairs_has_no_rows() -> None:
    resamples = CalibrationResamples(TASKS, PAIRS.iloc[:0], samples=2, by="model_id")
    resamples.add(COUNTS[:2], ORDER)
    out = resamples.intervals(0.05)
    assert len(out) == 0 and list(out.columns[:2]) == ["model_id", "dimension"]
