"""run_bootstrap's per-model dimension scores ('dimension_score') and subcategory scores
('subcategory_score', per model and pooled): hand-computed point values, and intervals equal
to a direct numpy recomputation over the same resample counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from distressbench.stats.bootstrap.checks import BootstrapInputError
from fixtures.bootstrap_inputs import run_bootstrap
from fixtures.independent_pairs import resample_counts

SEED, SAMPLES, ALPHA = 4, 40, 0.1
TASKS = ("t1", "t2", "t3")
SUBCATEGORY = {"t1": "loss", "t2": "loss", "t3": "isolation"}
SCORES = {"a": (1.0, 0.5, 0.25), "b": (0.0, 0.5, 0.75), "ref": (1.0, 1.0, 0.5)}
# dimension -> model -> {task: score}; routing on t1 and t3 only
DIMENSIONS = {
    "routing": {"a": {"t1": 1.0, "t3": 0.5}, "b": {"t1": 0.0, "t3": 1.0}, "ref": {"t1": 1.0, "t3": 1.0}},
    "validation": {
        "a": {"t1": 0.5, "t2": 0.25, "t3": 0.0},
        "b": {"t1": 1.0, "t2": 0.5, "t3": 0.75},
        "ref": {"t1": 1.0, "t2": 1.0, "t3": 0.5},
    },
}


def cells() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "model_id": model,
                "task_id": task,
                "kind": "clinician_reference" if model == "ref" else "model",
                "score": scores[i],
                "turn_type": "single",
                "is_recognized_with_routing": False,
                "is_not_routed": False,
                "subcategory": SUBCATEGORY[task],
            }
            for model, scores in SCORES.items()
            for i, task in enumerate(TASKS)
        ]
    )


def dimension_cells() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"model_id": model, "task_id": task, "dimension": dimension, "score": score}
            for dimension, by_model in DIMENSIONS.items()
            for model, by_task in by_model.items()
            for task, score in by_task.items()
        ]
    )


def rows(result: pd.DataFrame, statistic: str, group: str) -> dict[tuple[str | None, str], tuple[float, ...]]:
    chosen = result[result["statistic"] == statistic]
    return {
        (None if pd.isna(r.model_id) else r.model_id, getattr(r, group)): (r.estimate, r.ci_low, r.ci_high)
        for r in chosen.itertuples(index=False)
    }


def test_point_values_by_hand() -> None:
    result = run_bootstrap(cells(), dimension_cells(), samples=SAMPLES, seed=SEED, alpha=ALPHA)
    dimension = {key: value[0] for key, value in rows(result, "dimension_score", "dimension").items()}
    assert dimension == pytest.approx(
        {
            ("a", "routing"): 0.75,  # (1 + 0.5) / 2 tasks with routing
            ("b", "routing"): 0.5,
            ("ref", "routing"): 1.0,  # the clinician reference has its dimension scores too
            ("a", "validation"): 0.25,
            ("b", "validation"): 0.75,
            ("ref", "validation"): 2.5 / 3,
        },
        abs=1e-12,
    )
    subcategory = {key: value[0] for key, value in rows(result, "subcategory_score", "subcategory").items()}
    assert subcategory == pytest.approx(
        {
            ("a", "loss"): 0.75,
            ("b", "loss"): 0.25,
            ("ref", "loss"): 1.0,
            (None, "loss"): 0.5,  # pooled over the ranked models a and b only
            ("a", "isolation"): 0.25,
            ("b", "isolation"): 0.75,
            ("ref", "isolation"): 0.5,
            (None, "isolation"): 0.5,
        },
        abs=1e-12,
    )
    group_rows = result[result["statistic"].isin(["dimension_score", "subcategory_score"])]
    assert group_rows["other_model_id"].isna().all() and group_rows["letters"].isna().all()
    assert result.loc[result["statistic"] == "dimension_score", "subcategory"].isna().all()
    assert result.loc[result["statistic"] == "subcategory_score", "dimension"].isna().all()


def test_intervals_equal_a_direct_recomputation_over_the_same_counts() -> None:
    result = run_bootstrap(cells(), dimension_cells(), samples=SAMPLES, seed=SEED, alpha=ALPHA)
    counts = resample_counts(SEED, len(TASKS), SAMPLES)  # columns in task_id order: t1, t2, t3
    q = [ALPHA / 2, 1 - ALPHA / 2]

    def interval(values: np.ndarray) -> tuple[float, float]:
        low, high = np.nanquantile(values, q, method="linear")
        return float(low), float(high)

    got = rows(result, "dimension_score", "dimension")
    for dimension, by_model in DIMENSIONS.items():
        has = np.array([task in by_model["a"] for task in TASKS], dtype=float)
        for model, by_task in by_model.items():
            score = np.array([by_task.get(task, 0.0) for task in TASKS])
            with np.errstate(invalid="ignore"):
                resampled = (counts @ score) / (counts @ has)
            assert got[(model, dimension)][1:] == pytest.approx(interval(resampled), abs=1e-12), (model, dimension)

    got = rows(result, "subcategory_score", "subcategory")
    for subcategory in ("loss", "isolation"):
        member = np.array([SUBCATEGORY[task] == subcategory for task in TASKS], dtype=float)
        drawn = counts @ member
        means = {}
        for model, scores in SCORES.items():
            with np.errstate(invalid="ignore"):
                means[model] = (counts @ (np.array(scores) * member)) / drawn
            assert got[(model, subcategory)][1:] == pytest.approx(interval(means[model]), abs=1e-12)
        pooled = (means["a"] + means["b"]) / 2
        assert got[(None, subcategory)][1:] == pytest.approx(interval(pooled), abs=1e-12)
    # isolation is one task: some resamples do not draw it and are left out of its interval
    assert (counts[:, 2] == 0).any()


def test_without_a_subcategory_column_there_are_no_subcategory_rows() -> None:
    result = run_bootstrap(cells().drop(columns="subcategory"), dimension_cells(), samples=SAMPLES, seed=SEED)
    assert not (result["statistic"] == "subcategory_score").any()


def test_a_task_with_two_subcategories_is_refused() -> None:
    mixed = cells()
    mixed.loc[(mixed["model_id"] == "b") & (mixed["task_id"] == "t1"), "subcategory"] = "isolation"
    with pytest.raises(BootstrapInputError, match=r"cells: 1 task_id\(s\) with more than one subcategory; e.g. 't1'"):
        run_bootstrap(mixed, dimension_cells(), samples=SAMPLES, seed=SEED)
