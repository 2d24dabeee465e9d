"""run_bootstrap: the joint task bootstrap, drawn and computed chunk by chunk over the design
matrix, and its output rows (the method is the package docstring's)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from distressbench.stats.bootstrap.checks import BootstrapInputError
from distressbench.stats.bootstrap.design import Design, build_design
from distressbench.stats.bootstrap.draws import ResampleCounts
from distressbench.stats.bootstrap.estimates import (
    familywise_intervals,
    headline_names,
    pair_intervals,
    percentile_interval,
    rank_interval,
    rank_rows,
    statistics,
    subcategory_statistics,
)
from distressbench.stats.bootstrap.letters import letters_by_model

OUTPUT_COLUMNS = (
    "statistic",
    "model_id",
    "other_model_id",
    "dimension",
    "subcategory",
    "estimate",
    "ci_low",
    "ci_high",
    "letters",
)
# one output row, OUTPUT_COLUMNS' values without dimension and subcategory (null but in group rows)
Row = tuple[str, str | None, str | None, float, float, float, str | None]
# a 'dimension_score' or 'subcategory_score' row: statistic, model_id, dimension, subcategory, estimate, interval
GroupRow = tuple[str, str | None, str | None, str | None, float, float, float]
# One float64 copy of the count matrix per chunk (the product reads it as it is).
COUNT_BYTES_BUDGET = 128 * 2**20


def default_chunk_size(n_tasks: int) -> int:
    """Resamples per chunk so one copy of the count matrix stays within COUNT_BYTES_BUDGET."""
    return max(1, COUNT_BYTES_BUDGET // (8 * max(1, n_tasks)))


def run_bootstrap(
    cells: pd.DataFrame,
    dimension_cells: pd.DataFrame,
    *,
    samples: int,
    seed: int,
    alpha: float,
    chunk_size: int | None = None,
    on_counts: Callable[[np.ndarray, np.ndarray], None] | None = None,
) -> pd.DataFrame:
    """Joint task bootstrap of model scores, ranks, pair differences and headline metrics.

    cells: one row per (model, task) with model_id, task_id, kind, score, turn_type,
    is_recognized_with_routing, is_not_routed (only counted where recognized).
    dimension_cells: one row per (model, task, dimension) for the tasks that have the
    dimension: model_id, task_id, dimension, score. Extra columns are ignored.
    cells may carry a subcategory column (one per task): then each model's and the pooled
    'subcategory_score' rows come too.
    Returns OUTPUT_COLUMNS (see the package docstring for the method, ranking and tie
    conventions).
    on_counts(counts, task_ids), if given, sees each chunk of resample counts in resample
    order (columns: the sorted task ids it is given), so that another bootstrap over the same
    tasks (CalibrationResamples.add) shares the draws; the array is reused for the next chunk.
    samples, seed and alpha: the vars bootstrap_samples, bootstrap_seed and bootstrap_alpha
    (the dbt model passes the vars dbt was given).
    """
    _check_parameters(samples, seed, alpha, chunk_size)

    design = build_design(cells, dimension_cells)
    n, m, k = design.n_tasks, design.n_models, design.n_ranked
    names = headline_names(design)

    # Point estimates: the same exact path with every task drawn once.
    identity = np.ones((1, n)) @ design.design * design.unscale
    point_means = identity[0, :m] / n
    ranked_ids = design.model_ids[design.ranked]
    order = sorted(range(k), key=lambda j: (-point_means[design.ranked[j]], ranked_ids[j]))
    point = np.concatenate([statistics(identity, design)[0], subcategory_statistics(np.ones((1, n)), design)[0]])

    step = min(samples, int(chunk_size) if chunk_size is not None else default_chunk_size(n))
    draws, ranks, top_share = _resample(design, len(point), samples, int(seed), step, on_counts)
    low, high = percentile_interval(draws, alpha)
    rank_mid, rank_low, rank_high = rank_interval(ranks, alpha)
    # every pair of ranked models, in ranking order: the paired intervals and the letters
    in_order = design.ranked[order]
    pair_low, pair_high = pair_intervals(draws[:, in_order], alpha)
    adjusted_low, adjusted_high = familywise_intervals(draws[:, in_order], point[in_order], alpha)
    separated = (adjusted_low > 0) | (adjusted_high < 0)  # at the family-wise level
    letters = letters_by_model(separated | separated.T)

    unranked = sorted(
        set(range(m)) - set(design.ranked.tolist()) - {design.reference}, key=lambda i: design.model_ids[i]
    )
    model_order = [int(design.ranked[j]) for j in order] + unranked
    model_order += [design.reference] if design.reference is not None else []
    rows: list[Row] = []
    for i in model_order:
        rows.append(("model_score", design.model_ids[i], None, point[i], low[i], high[i], None))
    for offset, name in enumerate(names):
        c = m + offset
        rows.append((name, None, None, point[c], low[c], high[c], None))
    for j in order:
        rank_row = (float(rank_mid[j]), float(rank_low[j]), float(rank_high[j]))
        rows.append(("rank", ranked_ids[j], None, *rank_row, None))
    for j in order:
        rows.append(("p_rank_1", ranked_ids[j], None, top_share[j] / samples, math.nan, math.nan, None))
    for position, j in enumerate(order):
        rows.append(("letters", ranked_ids[j], None, math.nan, math.nan, math.nan, letters[position]))
    for a, b in zip(*np.triu_indices(k, 1), strict=True):
        difference = point[in_order[a]] - point[in_order[b]]
        pair = (ranked_ids[order[a]], ranked_ids[order[b]], difference, pair_low[a, b], pair_high[a, b])
        rows.append(("pair_difference", *pair, None))
        adjusted = (ranked_ids[order[a]], ranked_ids[order[b]], difference, adjusted_low[a, b], adjusted_high[a, b])
        rows.append(("pair_difference_familywise", *adjusted, None))

    groups = _group_frame(_group_rows(design, point, low, high, m + len(names)))
    return pd.concat([_frame(rows), groups], ignore_index=True)


def _group_rows(design: Design, point: np.ndarray, low: np.ndarray, high: np.ndarray, start: int) -> list[GroupRow]:
    """The 'dimension_score' rows (every model, every dimension), then the 'subcategory_score'
    rows (every model, then the pooled row with model_id null), from column `start` on."""
    rows: list[GroupRow] = []
    c = start
    for dimension in design.dimensions:
        for model_id in design.model_ids:
            rows.append(("dimension_score", model_id, dimension, None, point[c], low[c], high[c]))
            c += 1
    for subcategory in design.subcategories:
        for model_id in [*design.model_ids, None]:
            rows.append(("subcategory_score", model_id, None, subcategory, point[c], low[c], high[c]))
            c += 1
    return rows


def _check_parameters(samples: int, seed: int, alpha: float, chunk_size: int | None) -> None:
    """samples and chunk_size (when given) positive integers, seed a non-negative one, alpha in (0, 1)."""
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise BootstrapInputError(f"samples must be a positive integer, got {samples!r}")
    if not 0.0 < float(alpha) < 1.0:
        raise BootstrapInputError(f"alpha must be in (0, 1), got {alpha!r}")
    if chunk_size is not None and (
        isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1
    ):
        raise BootstrapInputError(f"chunk_size must be a positive integer or None, got {chunk_size!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise BootstrapInputError(f"seed must be a non-negative integer, got {seed!r}")


def _resample(
    design: Design,
    n_stats: int,
    samples: int,
    seed: int,
    step: int,
    on_counts: Callable[[np.ndarray, np.ndarray], None] | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(draws, ranks, top_share): every resample's statistics and its ranks among the ranked
    models, and each ranked model's summed share of rank 1, drawn `step` resamples at a time."""
    n, k = design.n_tasks, design.n_ranked
    draws = np.empty((samples, n_stats))
    ranks = np.empty((samples, k), dtype=np.int32)
    top_share = np.zeros(k)
    resamples = ResampleCounts(seed, n, samples)
    counts = np.empty((step, n))
    for start in range(0, samples, step):
        size = min(step, samples - start)
        drawn = resamples.take(size, out=counts)
        if on_counts is not None:
            on_counts(drawn, design.task_ids)
        sums = (drawn @ design.design) * design.unscale
        stats = draws[start : start + size]  # written in place: no second copy of the chunk's statistics
        main = statistics(sums, design)
        stats[:, : main.shape[1]] = main
        stats[:, main.shape[1] :] = subcategory_statistics(drawn, design)
        chunk_ranks = rank_rows(stats[:, design.ranked])
        ranks[start : start + size] = chunk_ranks
        top = chunk_ranks == 1
        top_share += (top / top.sum(axis=1, keepdims=True)).sum(axis=0)
    return draws, ranks, top_share


def _frame(rows: list[Row]) -> pd.DataFrame:
    """The rows as a frame of OUTPUT_COLUMNS: ids as str, the numbers as float64."""
    columns = list(zip(*rows, strict=True))
    return pd.DataFrame(
        {
            "statistic": pd.Series(columns[0], dtype="str"),
            "model_id": pd.Series(columns[1], dtype="str"),
            "other_model_id": pd.Series(columns[2], dtype="str"),
            "dimension": pd.Series([None] * len(rows), dtype="str"),
            "subcategory": pd.Series([None] * len(rows), dtype="str"),
            "estimate": np.asarray(columns[3], dtype=np.float64),
            "ci_low": np.asarray(columns[4], dtype=np.float64),
            "ci_high": np.asarray(columns[5], dtype=np.float64),
            "letters": pd.Series(columns[6], dtype="str"),
        }
    )


def _group_frame(rows: list[GroupRow]) -> pd.DataFrame:
    """The group rows as a frame of OUTPUT_COLUMNS (other_model_id and letters null)."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * 7
    return pd.DataFrame(
        {
            "statistic": pd.Series(columns[0], dtype="str"),
            "model_id": pd.Series(columns[1], dtype="str"),
            "other_model_id": pd.Series([None] * len(rows), dtype="str"),
            "dimension": pd.Series(columns[2], dtype="str"),
            "subcategory": pd.Series(columns[3], dtype="str"),
            "estimate": np.asarray(columns[4], dtype=np.float64),
            "ci_low": np.asarray(columns[5], dtype=np.float64),
            "ci_high": np.asarray(columns[6], dtype=np.float64),
            "letters": pd.Series([None] * len(rows), dtype="str"),
        }
    )
