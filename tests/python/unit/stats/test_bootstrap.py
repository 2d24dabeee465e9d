"""Tests for the task bootstrap (distressbench.stats.bootstrap): its estimates, intervals,
ranks and input checks, through run_bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from distressbench.stats.bootstrap.checks import BootstrapInputError
from distressbench.stats.bootstrap.estimates import rank_rows
from distressbench.stats.bootstrap.run import OUTPUT_COLUMNS
from fixtures.bootstrap_inputs import random_inputs, run_bootstrap

REF = "ref"
# Hand-made fixture: 4 ranked models (even count) + a clinician reference, 3 tasks.
SCORES = {  # model -> scores on t1, t2 (single-turn) and t3 (multi-turn)
    "A": (1.0, 0.5, 0.9),
    "B": (0.6, 0.6, 0.6),
    "C": (0.2, 0.4, 0.3),
    "D": (0.5, 0.7, 0.9),
    REF: (1.0, 1.0, 0.7),
}
RECOGNIZED = {"A": (1, 1, 0), "B": (1, 0, 1), "C": (0, 0, 0), "D": (1, 1, 1), REF: (1, 1, 1)}
NOT_ROUTED = {"A": (0, 1, 0), "B": (1, 1, 0), "C": (1, 0, 0), "D": (0, 0, 1), REF: (1, 1, 1)}
# dimension -> model -> {task: score}; routing lacks t3, safety_disclaimer only on t3.
DIMENSIONS = {
    "routing": {
        "A": {"t1": 1.0, "t2": 0.0},
        "B": {"t1": 0.5, "t2": 0.5},
        "C": {"t1": 0.0, "t2": 0.0},
        "D": {"t1": 1.0, "t2": 1.0},
        REF: {"t1": 1.0, "t2": 1.0},
    },
    "validation": {
        "A": {"t1": 1.0, "t2": 0.5, "t3": 1.0},
        "B": {"t1": 0.8, "t2": 0.6, "t3": 0.4},
        "C": {"t1": 0.2, "t2": 0.2, "t3": 0.5},
        "D": {"t1": 0.6, "t2": 0.9, "t3": 0.6},
        REF: {"t1": 1.0, "t2": 0.9, "t3": 0.8},
    },
    "safety_disclaimer": {"A": {"t3": 1.0}, "B": {"t3": 0.0}, "C": {"t3": 0.0}, "D": {"t3": 0.5}, REF: {"t3": 1.0}},
}
TASKS = ("t1", "t2", "t3")


def hand_cells() -> pd.DataFrame:
    rows = []
    for model, scores in SCORES.items():
        for i, task in enumerate(TASKS):
            rows.append(
                {
                    "model_id": model,
                    "task_id": task,
                    "kind": "clinician_reference" if model == REF else "model",
                    "score": scores[i],
                    "turn_type": "multi" if task == "t3" else "single",
                    "is_recognized_with_routing": bool(RECOGNIZED[model][i]),
                    "is_not_routed": bool(NOT_ROUTED[model][i]),
                }
            )
    return pd.DataFrame(rows)


def hand_dimensions() -> pd.DataFrame:
    rows = [
        {"model_id": model, "task_id": task, "dimension": dim, "score": score}
        for dim, by_model in DIMENSIONS.items()
        for model, by_task in by_model.items()
        for task, score in by_task.items()
    ]
    return pd.DataFrame(rows)


def no_dimensions() -> pd.DataFrame:
    return pd.DataFrame({"model_id": [], "task_id": [], "dimension": [], "score": []}).astype(
        {"model_id": "str", "task_id": "str", "dimension": "str", "score": "float64"}
    )


def grid_cells(scores: np.ndarray, models: list[str], kinds: list[str] | None = None) -> pd.DataFrame:
    """cells from a tasks x models score matrix; every task single-turn, recognized and routed."""
    n_tasks, n_models = scores.shape
    kinds = kinds or ["model"] * n_models
    return pd.DataFrame(
        {
            "model_id": np.tile(np.array(models, dtype=object), n_tasks),
            "task_id": np.repeat(np.array([f"task-{i:04d}" for i in range(n_tasks)], dtype=object), n_models),
            "kind": np.tile(np.array(kinds, dtype=object), n_tasks),
            "score": scores.ravel(),
            "turn_type": "single",
            "is_recognized_with_routing": True,
            "is_not_routed": False,
        }
    )


def stat(result: pd.DataFrame, statistic: str, model: str | None = None, other: str | None = None) -> pd.Series:
    rows = result[result["statistic"] == statistic]
    rows = rows[rows["model_id"].isna()] if model is None else rows[rows["model_id"] == model]
    if other is not None:
        rows = rows[rows["other_model_id"] == other]
    assert len(rows) == 1, (statistic, model, other, len(rows))
    return rows.iloc[0]


# --------------------------------------------------------------------------- point estimates


def test_point_estimates_match_direct_pandas_computation() -> None:
    cells, dims = hand_cells(), hand_dimensions()
    result = run_bootstrap(cells, dims, samples=200)
    assert list(result.columns) == list(OUTPUT_COLUMNS)

    model_means = cells.groupby("model_id")["score"].mean()
    ranked_cells = cells[cells["kind"] == "model"]
    ranked_means = ranked_cells.groupby("model_id")["score"].mean()
    turn = ranked_cells.groupby("turn_type")["score"].mean()
    recognized = ranked_cells["is_recognized_with_routing"]
    rate = (recognized & ranked_cells["is_not_routed"]).sum() / recognized.sum()
    ranked_dims = dims[dims["model_id"].isin(ranked_means.index)]
    dim_means = ranked_dims.groupby(["dimension", "model_id"])["score"].mean()
    expected = {
        "best_model_score": ranked_means.max(),
        "median_model_score": ranked_means.median(),
        "clinician_reference_score": model_means[REF],
        "recognized_not_routed_rate": rate,
        "single_turn_score": turn["single"],
        "multi_turn_score": turn["multi"],
        "multi_minus_single": turn["multi"] - turn["single"],
    }
    for dim in DIMENSIONS:
        expected[f"best_{dim}_score"] = dim_means[dim].max()
        expected[f"median_{dim}_score"] = dim_means[dim].median()
    for name, value in expected.items():
        assert stat(result, name)["estimate"] == pytest.approx(value, abs=1e-12), name
    for model, value in model_means.items():
        assert stat(result, "model_score", model)["estimate"] == pytest.approx(value, abs=1e-12)

    # The same values by hand, so a shared mistake in the pandas recipe would show.
    by_hand = {
        "best_model_score": 0.8,
        "median_model_score": (0.6 + 0.7) / 2,  # even count: mean of the two middle
        "clinician_reference_score": 0.9,
        "recognized_not_routed_rate": 3 / 7,  # B's t2 is not routed but not recognized
        "single_turn_score": 4.5 / 8,
        "multi_turn_score": 2.7 / 4,
        "best_routing_score": 1.0,  # D, over t1 and t2 only (t3 lacks routing)
        "median_routing_score": 0.5,
        "best_safety_disclaimer_score": 1.0,
        "median_safety_disclaimer_score": 0.25,
        "median_validation_score": (0.6 + 0.7) / 2,
    }
    for name, value in by_hand.items():
        assert stat(result, name)["estimate"] == pytest.approx(value, abs=1e-12), name


def test_rows_and_pair_differences_follow_point_ranking() -> None:
    result = run_bootstrap(hand_cells(), hand_dimensions(), samples=200)
    ranked_order = ["A", "D", "B", "C"]
    assert result.loc[result["statistic"] == "model_score", "model_id"].tolist() == ranked_order + [REF]
    assert result.loc[result["statistic"] == "rank", "model_id"].tolist() == ranked_order
    pairs = result[result["statistic"] == "pair_difference"]
    assert list(zip(pairs["model_id"], pairs["other_model_id"], strict=True)) == [
        ("A", "D"),
        ("A", "B"),
        ("A", "C"),
        ("D", "B"),
        ("D", "C"),
        ("B", "C"),
    ]
    assert pairs["estimate"].to_numpy() == pytest.approx([0.1, 0.2, 0.5, 0.1, 0.4, 0.3], abs=1e-12)
    adjusted = result[result["statistic"] == "pair_difference_familywise"]
    assert list(zip(adjusted["model_id"], adjusted["other_model_id"], strict=True)) == list(
        zip(pairs["model_id"], pairs["other_model_id"], strict=True)
    )
    assert adjusted["estimate"].tolist() == pairs["estimate"].tolist()
    is_pair = result["statistic"].isin(["pair_difference", "pair_difference_familywise"])
    assert result.loc[~is_pair, "other_model_id"].isna().all()
    assert result.loc[result["statistic"] == "best_model_score", "model_id"].isna().all()
    assert result.loc[result["statistic"] == "p_rank_1", ["ci_low", "ci_high"]].isna().all().all()


def test_exact_point_ties_are_ordered_by_model_id() -> None:
    scores = np.array([[0.5, 0.5, 0.9], [0.7, 0.7, 0.1]])
    result = run_bootstrap(grid_cells(scores, ["zeta", "alpha", "mid"]), no_dimensions(), samples=50)
    pairs = result[result["statistic"] == "pair_difference"]
    assert list(zip(pairs["model_id"], pairs["other_model_id"], strict=True)) == [
        ("alpha", "zeta"),
        ("alpha", "mid"),
        ("zeta", "mid"),
    ]


# --------------------------------------------------------------------------- sampling behaviour


def test_interval_width_matches_binomial_standard_error() -> None:
    n = 400
    scores = (np.arange(n) % 2).astype(float)[:, None]  # 1 on half of the tasks, 0 on the rest
    result = run_bootstrap(grid_cells(scores, ["half"]), no_dimensions(), samples=4000, seed=7)
    row = stat(result, "model_score", "half")
    analytic = 2 * 1.96 * math.sqrt(0.5 * 0.5 / n)
    assert row["estimate"] == pytest.approx(0.5, abs=1e-12)
    assert row["ci_high"] - row["ci_low"] == pytest.approx(analytic, rel=0.10)
    assert row["ci_low"] < 0.5 < row["ci_high"]


def test_same_seed_gives_identical_output_and_seed_matters() -> None:
    cells, dims = random_inputs(60, 6, n_dimensions=3, seed=1)
    first = run_bootstrap(cells, dims, samples=300, seed=11)
    second = run_bootstrap(cells, dims, samples=300, seed=11)
    pd.testing.assert_frame_equal(first, second, check_exact=True)
    other = run_bootstrap(cells, dims, samples=300, seed=12)
    assert not np.array_equal(first["ci_low"].to_numpy(), other["ci_low"].to_numpy(), equal_nan=True)


def test_chunk_size_and_row_order_do_not_change_results() -> None:
    cells, dims = random_inputs(50, 5, n_dimensions=3, seed=2)
    reference = run_bootstrap(cells, dims, samples=257, seed=3)
    for chunk in (1, 7, 100, 257, 10_000):
        chunked = run_bootstrap(cells, dims, samples=257, seed=3, chunk_size=chunk)
        pd.testing.assert_frame_equal(reference, chunked, check_exact=True)
    shuffled = run_bootstrap(
        cells.sample(frac=1.0, random_state=0).reset_index(drop=True),
        dims.sample(frac=1.0, random_state=0).reset_index(drop=True),
        samples=257,
        seed=3,
    )
    pd.testing.assert_frame_equal(reference, shuffled, check_exact=True)


def test_categorical_id_columns_give_the_same_results() -> None:
    """The build hands the dimension rows over with categorical ids (less memory, one look-up
    per category); categories that no row has change nothing, and an unknown id is named."""
    cells, dims = random_inputs(50, 5, n_dimensions=3, seed=2)
    reference = run_bootstrap(cells, dims, samples=257, seed=3)
    categorical = dims.copy()
    for column in ("model_id", "task_id", "dimension"):
        unused = [f"unused-{column}"]
        categorical[column] = pd.Categorical(dims[column], categories=unused + sorted(set(dims[column]))[::-1])
    pd.testing.assert_frame_equal(reference, run_bootstrap(cells, categorical, samples=257, seed=3), check_exact=True)
    categorical_cells = cells.astype({"model_id": "category", "task_id": "category"})
    result = run_bootstrap(categorical_cells, categorical, samples=257, seed=3)
    pd.testing.assert_frame_equal(reference, result, check_exact=True)
    ghost = dims.copy()
    ghost.loc[0, "model_id"] = "ghost"
    ghost["model_id"] = ghost["model_id"].astype("category")
    with pytest.raises(BootstrapInputError, match=r"1 row\(s\) whose model_id is not in cells.*'ghost'"):
        run_bootstrap(cells, ghost, samples=10)


def test_one_task_gives_zero_width_intervals() -> None:
    scores = np.array([[0.3, 0.8, 0.55]])
    result = run_bootstrap(grid_cells(scores, ["a", "b", "c"]), no_dimensions(), samples=100)
    finite = result[result["ci_low"].notna()]
    assert (finite["ci_low"] == finite["ci_high"]).all()
    assert np.allclose(finite["ci_low"], finite["estimate"], atol=1e-12)
    assert stat(result, "rank", "b")[["estimate", "ci_low", "ci_high"]].tolist() == [1.0, 1.0, 1.0]
    assert stat(result, "p_rank_1", "b")["estimate"] == 1.0
    # No multi-turn task: that metric is not estimable, not zero.
    assert math.isnan(stat(result, "multi_turn_score")["estimate"])
    assert math.isnan(stat(result, "multi_turn_score")["ci_low"])


def test_all_equal_scores_give_zero_width_intervals_and_shared_rank() -> None:
    scores = np.full((40, 4), 0.7)
    result = run_bootstrap(grid_cells(scores, ["a", "b", "c", "d"]), no_dimensions(), samples=200)
    for name in ("model_score", "best_model_score", "median_model_score", "pair_difference"):
        rows = result[result["statistic"] == name]
        assert (rows["ci_low"] == rows["ci_high"]).all(), name
    best = stat(result, "best_model_score")["estimate"]
    assert (result.loc[result["statistic"] == "model_score", "estimate"] == best).all()
    assert (result.loc[result["statistic"] == "pair_difference", "estimate"] == 0.0).all()
    assert (result.loc[result["statistic"] == "rank", ["estimate", "ci_low", "ci_high"]] == 1.0).all().all()
    assert result.loc[result["statistic"] == "p_rank_1", "estimate"].tolist() == [0.25] * 4


def test_paired_difference_uses_the_same_resamples() -> None:
    rng = np.random.default_rng(5)
    base = rng.uniform(0.1, 0.8, 200)
    # "better" beats "worse" by 0.05 on every task; "noisy" is independent of both.
    scores = np.column_stack([base + 0.05, base, rng.uniform(0.0, 0.4, 200)])
    result = run_bootstrap(grid_cells(scores, ["better", "worse", "noisy"]), no_dimensions(), samples=1000)
    better, worse = stat(result, "model_score", "better"), stat(result, "model_score", "worse")
    assert better["ci_low"] < worse["ci_high"]  # the separate intervals overlap ...
    diff = stat(result, "pair_difference", "better", "worse")
    # ... but paired over the same tasks the difference is exactly 0.05 in every resample.
    assert diff[["estimate", "ci_low", "ci_high"]].to_numpy() == pytest.approx([0.05] * 3, abs=1e-9)
    below = stat(result, "pair_difference", "worse", "noisy")
    assert below["estimate"] > 0 and below["ci_low"] > 0
    noisy = stat(result, "model_score", "noisy")["estimate"]
    assert below["estimate"] == pytest.approx(worse["estimate"] - noisy, abs=1e-12)


def test_rank_probabilities_sum_to_one_and_rank_interval_contains_median() -> None:
    cells, dims = random_inputs(30, 9, n_dimensions=2, seed=4)
    result = run_bootstrap(cells, dims, samples=500)
    p_top = result.loc[result["statistic"] == "p_rank_1", "estimate"]
    assert len(p_top) == 8  # the clinician reference is not ranked
    assert p_top.sum() == pytest.approx(1.0, abs=1e-12)
    assert (p_top >= 0).all()
    ranks = result[result["statistic"] == "rank"]
    assert ((ranks["ci_low"] <= ranks["estimate"]) & (ranks["estimate"] <= ranks["ci_high"])).all()
    assert ranks[["estimate", "ci_low", "ci_high"]].isin(list(range(1, 9))).all().all()


def test_tied_models_share_rank_one_credit() -> None:
    rng = np.random.default_rng(9)
    top = rng.uniform(0.6, 1.0, 25)
    scores = np.column_stack([top, top, top - 0.3])
    result = run_bootstrap(grid_cells(scores, ["x", "y", "z"]), no_dimensions(), samples=300)
    p_top = result[result["statistic"] == "p_rank_1"].set_index("model_id")["estimate"]
    assert p_top.to_dict() == {"x": 0.5, "y": 0.5, "z": 0.0}
    assert stat(result, "rank", "x")["ci_high"] == 1.0 and stat(result, "rank", "z")["estimate"] == 3.0


def test_ranks_count_the_models_strictly_ahead_and_ties_share_the_better_rank() -> None:
    by_hand = np.array([[0.5, 0.7, 0.5, 0.1], [0.2, 0.2, 0.2, 0.2], [0.0, 0.3, 0.9, 0.3]])
    assert rank_rows(by_hand).tolist() == [[2, 1, 2, 4], [1, 1, 1, 1], [4, 2, 1, 2]]
    scores = np.random.default_rng(5).integers(0, 6, size=(500, 40)) / 5  # many ties
    strictly_ahead = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    assert (rank_rows(scores) == 1 + strictly_ahead).all()


def test_resamples_without_the_dimension_are_left_out_of_its_interval() -> None:
    n = 10
    scores = np.tile(np.linspace(0.1, 0.9, n)[:, None], (1, 2)) * np.array([1.0, 0.5])
    cells = grid_cells(scores, ["m1", "m2"])
    # Only the first task has the dimension: ~35% of resamples draw no task that has it.
    dims = pd.DataFrame(
        {"model_id": ["m1", "m2"], "task_id": ["task-0000"] * 2, "dimension": ["rare"] * 2, "score": [0.4, 0.2]}
    )
    result = run_bootstrap(cells, dims, samples=400)
    for name, value in (("best_rare_score", 0.4), ("median_rare_score", 0.3)):
        row = stat(result, name)
        assert row[["estimate", "ci_low", "ci_high"]].to_numpy() == pytest.approx([value] * 3, abs=1e-12), name


def test_unicode_ids_and_no_clinician_reference() -> None:
    models = ['modèle "α"; drop', "模型-2", "o'brien\nv2"]
    scores = np.array([[0.9, 0.2, 0.5], [0.8, 0.3, 0.6], [0.7, 0.1, 0.4]])
    result = run_bootstrap(grid_cells(scores, models), no_dimensions(), samples=100)
    assert set(result.loc[result["statistic"] == "model_score", "model_id"]) == set(models)
    assert "clinician_reference_score" not in set(result["statistic"])
    assert stat(result, "pair_difference", models[0], models[2])["estimate"] == pytest.approx(0.8 - 0.5, abs=1e-12)


# --------------------------------------------------------------------------- validation


def test_missing_column_is_named() -> None:
    with pytest.raises(BootstrapInputError, match=r"cells: 1 missing column\(s\): turn_type"):
        run_bootstrap(hand_cells().drop(columns="turn_type"), hand_dimensions())
    with pytest.raises(BootstrapInputError, match=r"dimension_cells: .*dimension"):
        run_bootstrap(hand_cells(), hand_dimensions().drop(columns="dimension"))


def test_duplicate_and_missing_cells_are_reported_with_keys() -> None:
    cells = hand_cells()
    with pytest.raises(BootstrapInputError, match=r"cells: 1 duplicate \(model_id, task_id\).*\('A', 't1'\)"):
        run_bootstrap(pd.concat([cells, cells.iloc[[0]]]), hand_dimensions())
    dropped = cells[~((cells["model_id"] == "C") & (cells["task_id"] == "t2"))]
    with pytest.raises(BootstrapInputError, match=r"cells: 1 missing \(model_id, task_id\).*\('C', 't2'\)"):
        run_bootstrap(dropped, hand_dimensions())


def test_model_kinds_are_checked() -> None:
    cells = hand_cells()
    only_reference = cells[cells["model_id"] == REF]
    with pytest.raises(BootstrapInputError, match="0 models of kind 'model'"):
        run_bootstrap(only_reference, no_dimensions())
    two_refs = cells.assign(kind=np.where(cells["model_id"].isin([REF, "C"]), "clinician_reference", "model"))
    with pytest.raises(BootstrapInputError, match=r"2 models of kind 'clinician_reference'.*'C'"):
        run_bootstrap(two_refs, hand_dimensions())
    a_t1 = (cells["model_id"] == "A") & (cells["task_id"] == "t1")
    mixed = cells.assign(kind=np.where(a_t1, "clinician_reference", cells["kind"]))
    with pytest.raises(BootstrapInputError, match=r"model_id\(s\) with more than one kind.*'A'"):
        run_bootstrap(mixed, hand_dimensions())
    with pytest.raises(BootstrapInputError, match="not in"):
        run_bootstrap(cells.assign(kind="judge"), hand_dimensions())


def test_bad_values_are_rejected() -> None:
    cells = hand_cells()
    with pytest.raises(BootstrapInputError, match=r"cells: 1 score\(s\) outside \[0, 1\]"):
        run_bootstrap(cells.assign(score=np.where(cells.index == 4, 1.5, cells["score"])), hand_dimensions())
    with pytest.raises(BootstrapInputError, match=r"null value\(s\) in column 'score'"):
        run_bootstrap(cells.assign(score=np.where(cells.index == 4, np.nan, cells["score"])), hand_dimensions())
    a_t1 = (cells["model_id"] == "A") & (cells["task_id"] == "t1")
    flipped = cells.assign(turn_type=np.where(a_t1, "multi", cells["turn_type"]))
    with pytest.raises(BootstrapInputError, match=r"task_id\(s\) with more than one turn_type.*'t1'"):
        run_bootstrap(flipped, hand_dimensions())
    with pytest.raises(BootstrapInputError, match="must be boolean"):
        run_bootstrap(cells.assign(is_not_routed=cells["is_not_routed"].astype(int)), hand_dimensions())
    with pytest.raises(BootstrapInputError, match="samples must be a positive integer"):
        run_bootstrap(cells, hand_dimensions(), samples=0)
    with pytest.raises(BootstrapInputError, match="alpha"):
        run_bootstrap(cells, hand_dimensions(), alpha=1.0)


def test_dimension_rows_must_cover_every_model() -> None:
    dims = hand_dimensions()
    short = dims[~((dims["model_id"] == "B") & (dims["dimension"] == "routing") & (dims["task_id"] == "t2"))]
    pattern = r"1 \(task_id, dimension\) pair\(s\).*\('t2', 'routing'\) has 4 of 5"
    with pytest.raises(BootstrapInputError, match=pattern):
        run_bootstrap(hand_cells(), short)
    ghost = pd.DataFrame([{"model_id": "ghost", "task_id": "t1", "dimension": "routing", "score": 0.5}])
    unknown = pd.concat([dims, ghost])
    with pytest.raises(BootstrapInputError, match=r"whose model_id is not in cells.*'ghost'"):
        run_bootstrap(hand_cells(), unknown)
    with pytest.raises(BootstrapInputError, match=r"duplicate \(model_id, task_id, dimension\)"):
        run_bootstrap(hand_cells(), pd.concat([dims, dims.iloc[[0]]]))


def test_intervals_agree_with_an_independent_naive_bootstrap() -> None:
    """A plain loop over resamples, with its own generator, gives the same intervals within
    Monte-Carlo error (a few percent of the interval width at these B)."""
    cells, dimension_cells = random_inputs(n_tasks=150, n_models=6, n_dimensions=2, seed=3)
    ours = run_bootstrap(cells, dimension_cells, samples=4000, seed=11)

    scores = cells.pivot(index="task_id", columns="model_id", values="score")
    ranked = sorted(cells.loc[cells["kind"] == "model", "model_id"].unique())
    counted = cells.pivot(index="task_id", columns="model_id", values="is_recognized_with_routing")[ranked]
    failed = cells.pivot(index="task_id", columns="model_id", values="is_not_routed")[ranked] & counted
    rng = np.random.default_rng(12345)
    n = len(scores)
    naive: dict[str, list[float]] = {"model_score": [], "best_model_score": [], "recognized_not_routed_rate": []}
    for _ in range(4000):
        drawn = rng.integers(0, n, n)
        means = scores.iloc[drawn].mean()
        naive["model_score"].append(float(means[ranked[0]]))
        naive["best_model_score"].append(float(means[ranked].max()))
        naive["recognized_not_routed_rate"].append(
            float(failed.iloc[drawn].to_numpy().sum() / counted.iloc[drawn].to_numpy().sum())
        )

    def ours_row(statistic: str, model_id: str | None = None) -> pd.Series:
        rows = ours[ours["statistic"] == statistic]
        if model_id is not None:
            rows = rows[rows["model_id"] == model_id]
        assert len(rows) == 1
        return rows.iloc[0]

    checked = (("model_score", ranked[0]), ("best_model_score", None), ("recognized_not_routed_rate", None))
    for statistic, model_id in checked:
        row = ours_row(statistic, model_id)
        low, high = np.quantile(naive[statistic], [0.025, 0.975])
        width = row["ci_high"] - row["ci_low"]
        assert width > 0
        assert abs(row["ci_low"] - low) < 0.1 * width, (statistic, row["ci_low"], low)
        assert abs(row["ci_high"] - high) < 0.1 * width, (statistic, row["ci_high"], high)


# --------------------------------------------------------------------------- ties


def test_tied_models_in_shuffled_rows_get_identical_estimates_and_intervals() -> None:
    cells, dims = random_inputs(80, 5, n_dimensions=3, seed=10)
    # model-001 becomes an exact copy of model-000 on every task and dimension.
    for frame in (cells, dims):
        keys = ["task_id"] + (["dimension"] if "dimension" in frame else [])
        source = frame[frame["model_id"] == "model-000"].set_index(keys)
        twin = frame["model_id"] == "model-001"
        columns = ["score"] + (["is_recognized_with_routing", "is_not_routed"] if "kind" in frame else [])
        frame.loc[twin, columns] = source.loc[
            pd.MultiIndex.from_frame(frame.loc[twin, keys]) if len(keys) > 1 else frame.loc[twin, "task_id"], columns
        ].to_numpy()
    result = run_bootstrap(cells, dims, samples=400, seed=5)
    shuffled = run_bootstrap(
        cells.sample(frac=1.0, random_state=3).reset_index(drop=True),
        dims.sample(frac=1.0, random_state=4).reset_index(drop=True),
        samples=400,
        seed=5,
    )
    pd.testing.assert_frame_equal(result, shuffled, check_exact=True)
    for statistic in ("model_score", "rank", "p_rank_1"):
        a, b = stat(result, statistic, "model-000"), stat(result, statistic, "model-001")
        values = ["estimate", "ci_low", "ci_high"]
        np.testing.assert_array_equal(a[values].to_numpy(dtype=float), b[values].to_numpy(dtype=float))
    # The point order puts the twins next to each other (model_id breaks the tie), difference exactly 0.
    order = result.loc[result["statistic"] == "model_score", "model_id"].tolist()
    assert order.index("model-001") == order.index("model-000") + 1
    diff = stat(result, "pair_difference", "model-000", "model-001")
    assert diff[["estimate", "ci_low", "ci_high"]].tolist() == [0.0, 0.0, 0.0]
