"""The judge calibration's task bootstrap (distressbench.stats.calibration)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from distressbench.stats.bootstrap.draws import ResampleCounts
from distressbench.stats.calibration import CalibrationInputError, CalibrationResamples
from fixtures.bootstrap_inputs import random_inputs, run_bootstrap

SEED = 20261101


def calibration_intervals(
    tasks: pd.Series,
    pairs: pd.DataFrame,
    *,
    samples: int,
    seed: int = SEED,
    alpha: float = 0.05,
    chunk_size: int | None = None,
) -> pd.DataFrame:
    """The calibration bootstrap on its own: it draws the counts chunk by chunk, as the
    leaderboard bootstrap does when it feeds them to the build's CalibrationResamples."""
    resamples = CalibrationResamples(tasks, pairs, samples=samples)
    draws = ResampleCounts(seed, len(resamples.tasks), samples)
    step = chunk_size or samples
    for start in range(0, samples, step):
        counts = draws.take(min(step, samples - start))
        resamples.add(counts, resamples.tasks)
    return resamples.intervals(alpha)


def _pairs(n_tasks: int = 12, seed: int = 3) -> tuple[pd.Series, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    tasks = pd.Series([f"t-{i:02d}'" for i in range(n_tasks)][::-1], dtype="str")  # unsorted on purpose
    rows = []
    for task in tasks[: n_tasks - 2]:  # two tasks without calibrated pairs
        for _ in range(int(rng.integers(1, 6))):
            gold = bool(rng.random() < 0.6)
            judge = gold if rng.random() < 0.8 else not gold
            rows.append((task, str(rng.choice(["routing", "validation"])), judge, gold))
    return tasks, pd.DataFrame(rows, columns=["task_id", "dimension", "is_judge_met", "is_gold_met"])


def _naive(
    tasks: pd.Series, pairs: pd.DataFrame, samples: int, alpha: float
) -> dict[tuple[str, str], tuple[float, float]]:
    """Per resample, repeat each task's pairs by its count and recompute the statistics."""
    order = sorted(tasks)
    counts = ResampleCounts(SEED, len(order), samples).take(samples)
    draws: dict[tuple[str, str], list[float]] = {}
    for row in counts:
        weight = pairs["task_id"].map(dict(zip(order, row, strict=True)))
        for dimension in ["all", "routing", "validation"]:
            chosen = pairs if dimension == "all" else pairs[pairs["dimension"] == dimension]
            w = weight[chosen.index]
            j, g = chosen["is_judge_met"], chosen["is_gold_met"]
            tp, fp, fn, tn = (float(w[mask].sum()) for mask in (j & g, j & ~g, ~j & g, ~j & ~g))
            n = tp + fp + fn + tn
            agreement = (tp + tn) / n if n else np.nan
            pj, pg = ((tp + fp) / n, (tp + fn) / n) if n else (np.nan, np.nan)
            chance = pj * pg + (1 - pj) * (1 - pg)
            kappa = (agreement - chance) / (1 - chance) if n and chance != 1 else np.nan
            f1 = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else np.nan
            for name, value in (("agreement", agreement), ("kappa", kappa), ("f1", f1)):
                draws.setdefault((dimension, name), []).append(value)
    quantiles = [alpha / 2, 1 - alpha / 2]
    return {key: tuple(np.nanquantile(np.array(v), quantiles, method="linear")) for key, v in draws.items()}


def test_intervals_match_a_naive_bootstrap_and_do_not_depend_on_chunks() -> None:
    tasks, pairs = _pairs()
    result = calibration_intervals(tasks, pairs, samples=300, seed=SEED, alpha=0.1, chunk_size=300)
    for chunk in (1, 17):
        again = calibration_intervals(tasks, pairs, samples=300, seed=SEED, alpha=0.1, chunk_size=chunk)
        pd.testing.assert_frame_equal(result, again, check_exact=True)
    expected = _naive(tasks, pairs, 300, 0.1)
    assert list(result["dimension"]) == ["all", "routing", "validation"]
    for row in result.itertuples(index=False):
        for name in ("agreement", "kappa", "f1"):
            low, high = expected[(row.dimension, name)]
            assert abs(getattr(row, f"{name}_ci_low") - low) <= 1e-12, (row.dimension, name)
            assert abs(getattr(row, f"{name}_ci_high") - high) <= 1e-12, (row.dimension, name)


def test_a_chunk_worked_on_in_blocks_gives_the_same_intervals(monkeypatch: pytest.MonkeyPatch) -> None:
    tasks, pairs = _pairs()
    whole = calibration_intervals(tasks, pairs, samples=300, seed=SEED, alpha=0.1)
    monkeypatch.setattr("distressbench.stats.calibration.BLOCK_VALUES", 7 * 2 * 4)  # 7 resamples a block
    in_blocks = calibration_intervals(tasks, pairs, samples=300, seed=SEED, alpha=0.1)
    pd.testing.assert_frame_equal(whole, in_blocks, check_exact=True)


def test_no_calibration_pairs_gives_an_all_row_without_intervals() -> None:
    tasks, pairs = _pairs()
    result = calibration_intervals(tasks, pairs.iloc[0:0], samples=20, seed=SEED)
    assert list(result["dimension"]) == ["all"]
    assert result.drop(columns="dimension").isna().all().all()


def test_bad_input_is_named() -> None:
    tasks, pairs = _pairs()
    stray = pairs.copy()
    stray.loc[0, "task_id"] = "no-such-task;"
    message = r"calibration pairs: 1 pair\(s\) whose task_id is not a task.*no-such-task;"
    with pytest.raises(CalibrationInputError, match=message):
        calibration_intervals(tasks, stray, samples=5)
    with pytest.raises(CalibrationInputError, match=r"tasks: 1 duplicate task_id"):
        calibration_intervals(pd.concat([tasks, tasks[:1]]), pairs, samples=5)
    broken = pairs.astype({"is_gold_met": "object"})
    broken.loc[1, "is_gold_met"] = None
    with pytest.raises(CalibrationInputError, match=r"1 null value\(s\) in column 'is_gold_met'"):
        calibration_intervals(tasks, broken, samples=5)
    with pytest.raises(CalibrationInputError, match="samples must be a positive integer"):
        calibration_intervals(tasks, pairs, samples=0)


def test_fed_by_the_leaderboard_bootstrap_the_intervals_are_the_same() -> None:
    """The build draws the counts once: run_bootstrap hands each chunk to the calibration."""
    cells, dimension_cells = random_inputs(n_tasks=12, n_models=4, seed=5)
    tasks = pd.Series(sorted(cells["task_id"].unique())[::-1], dtype="str")
    pairs = pd.DataFrame(
        {
            "task_id": tasks.repeat(3).to_numpy(),
            "dimension": ["routing", "validation", "routing"] * len(tasks),
            "is_judge_met": [True, False, True, True, True, False] * (len(tasks) // 2),
            "is_gold_met": [True, True, False, True, False, False] * (len(tasks) // 2),
        }
    )
    alone = calibration_intervals(tasks, pairs, samples=200, seed=SEED, alpha=0.1)
    for chunk in (7, 200):
        shared = CalibrationResamples(tasks, pairs, samples=200)
        run_bootstrap(cells, dimension_cells, samples=200, seed=SEED, alpha=0.1, chunk_size=chunk, on_counts=shared.add)
        pd.testing.assert_frame_equal(shared.intervals(0.1), alone, check_exact=True)

    fewer = CalibrationResamples(tasks[1:], pairs[pairs["task_id"] != tasks[0]], samples=200)
    with pytest.raises(CalibrationInputError, match="the resamples count 12 tasks, the calibration has 11"):
        run_bootstrap(cells, dimension_cells, samples=200, seed=SEED, on_counts=fewer.add)
    unfinished = CalibrationResamples(tasks, pairs, samples=200)
    with pytest.raises(CalibrationInputError, match="0 of 200 resamples were added"):
        unfinished.intervals(0.1)
