"""Task-bootstrap percentile intervals for model scores, ranks and the headline metrics.

Method
- Tasks are resampled with replacement, B times. Resample b draws n_tasks task indices
  uniformly, ``Generator(PCG64(seed)).integers(0, n_tasks, size=(B, n_tasks))`` row b, and
  counts them (one ``np.bincount`` per chunk, each row offset by its position); every
  statistic of resample b uses the same counts (a joint bootstrap), so paired differences
  and ranks are consistent with the score intervals. (Drawing indices and counting them is
  ~2.5x faster than ``multinomial`` at 72,000 tasks and gives the same distribution.)
- Tasks are ordered by task_id (code-point order) and models by model_id before drawing,
  so the result does not depend on the row order of the inputs.
- Resampled sums are one matrix product, ``counts @ design``, over a design matrix with one
  column per needed per-task sum (model scores, turn-type masks, recognized / not-routed
  counts, per-dimension scores and "task has the dimension" masks). Ratios such as a
  dimension score (sum c*s*has / sum c*has) or the recognized-but-not-routed rate are
  re-estimated as ratios in every resample.
- Indices are drawn chunk by chunk from the one generator, in order (row-major), so
  resample b gets the same counts whatever ``chunk_size`` is. Each design column is put on a power-of-two grid
  (scores rounded to at most 2**-(52 - ceil(log2(n_tasks * column max))), i.e. ~1e-13 at 718
  tasks and ~1e-11 at 72,000) so that every sum in the product is an exact integer in
  float64. The product is then exact, whatever the BLAS, thread count or chunk shape, and
  the output is bitwise identical for any ``chunk_size``. (float32 would halve the
  product's cost but holds integers exactly only up to 2**24: scores would have to be
  rounded to ~2**-24 / n_tasks, i.e. coarser than 1e-9 at 718 tasks, so it is not used.) Point estimates go through the
  same path with every count equal to 1; they equal a direct float computation to ~1e-12.
- Intervals: percentile method, ``np.nanquantile(..., [alpha/2, 1 - alpha/2],
  method="linear")`` (Hyndman-Fan type 7). A resample in which a ratio has no denominator
  (no drawn task has the dimension, no single-turn task, no recognized pair) gives NaN for
  that statistic; those resamples are left out of its quantiles. A statistic that is NaN
  in every resample gets a NaN interval.
- Ranks: among models of kind 'model' only, rank = 1 + the number of models with a strictly
  higher score in that resample (so exact ties share the better rank). The 'rank' row gives
  the median rank over resamples and the (alpha/2, 1 - alpha/2) rank interval, both with
  ``method="inverted_cdf"`` so they are ranks that occurred. 'p_rank_1' is the share of
  resamples in which the model is ranked 1; when k models tie at the top each gets 1/k, so
  the probabilities sum to 1.
- Point ranking (for output order and 'pair_difference'): full-sample score descending,
  then model_id ascending for exact ties. 'pair_difference' pairs each model with the next
  one down: estimate = score(model) - score(next), interval over the same resamples.
"""

from __future__ import annotations

import math
import statistics as pystats
import time
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from distressbench.contract import MODEL_KINDS

CELL_COLUMNS = (
    "model_id",
    "task_id",
    "kind",
    "score",
    "turn_type",
    "is_recognized_with_routing",
    "is_not_routed",
)
DIMENSION_COLUMNS = ("model_id", "task_id", "dimension", "score")
OUTPUT_COLUMNS = ("statistic", "model_id", "other_model_id", "estimate", "ci_low", "ci_high")
TURN_TYPES = ("single", "multi")
RANKED_KIND = "model"
REFERENCE_KIND = "clinician_reference"

SCORE_QUANTILE_METHOD = "linear"
RANK_QUANTILE_METHOD = "inverted_cdf"
# Per copy of the count matrix (int64 indices, int64 counts, float64 for the product): ~384 MB together.
COUNT_BYTES_BUDGET = 128 * 2**20
# Bound on the (rows x models x models) comparison block used to rank resamples.
RANK_BYTES_BUDGET = 32 * 2**20
_EXAMPLES = 3


class BootstrapInputError(ValueError):
    """The cells or dimension_cells handed to run_bootstrap break an assumption."""


@dataclass(frozen=True)
class _Design:
    """Everything the resampling loop needs, in integer-coded, sorted order."""

    task_ids: np.ndarray  # sorted task ids (object array of str)
    model_ids: np.ndarray  # sorted model ids (object array of str)
    ranked: np.ndarray  # indices into model_ids of kind 'model'
    reference: int | None  # index into model_ids of the clinician reference
    dimensions: tuple[str, ...]  # sorted dimension ids
    design: np.ndarray  # n_tasks x n_columns, integer-valued float64
    unscale: np.ndarray  # n_columns, powers of two mapping sums back to score units

    @property
    def n_tasks(self) -> int:
        return len(self.task_ids)

    @property
    def n_models(self) -> int:
        return len(self.model_ids)

    @property
    def n_ranked(self) -> int:
        return len(self.ranked)


# --------------------------------------------------------------------------- validation


def _fail(table: str, problem: str, count: int, examples: list[object]) -> BootstrapInputError:
    shown = ", ".join(repr(e) for e in examples[:_EXAMPLES])
    return BootstrapInputError(f"{table}: {count} {problem}; e.g. {shown}")


def _check_columns(frame: pd.DataFrame, table: str, required: tuple[str, ...]) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise BootstrapInputError(f"{table}: expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise BootstrapInputError(f"{table}: {len(missing)} missing column(s): {', '.join(missing)}")
    for column in required:
        nulls = frame[column].isna().to_numpy()
        if nulls.any():
            rows = np.flatnonzero(nulls)
            raise _fail(table, f"null value(s) in column {column!r} at row position(s)", len(rows), list(rows))


def _check_strings(frame: pd.DataFrame, table: str, columns: tuple[str, ...]) -> None:
    for column in columns:
        if not pd.api.types.is_string_dtype(frame[column]):
            bad = frame[column][[not isinstance(v, str) for v in frame[column]]]
            raise _fail(table, f"non-string value(s) in column {column!r}", len(bad), bad.head(_EXAMPLES).tolist())


def _check_scores(frame: pd.DataFrame, table: str, keys: tuple[str, ...]) -> np.ndarray:
    column = frame["score"]
    if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        raise BootstrapInputError(f"{table}: column 'score' must be numeric, got dtype {column.dtype}")
    scores = column.to_numpy(dtype=np.float64)
    bad = ~(np.isfinite(scores) & (scores >= 0.0) & (scores <= 1.0))
    if bad.any():
        rows = frame.loc[bad, [*keys, "score"]].head(_EXAMPLES)
        raise _fail(table, "score(s) outside [0, 1]", int(bad.sum()), list(rows.itertuples(index=False, name=None)))
    return scores


def _check_bool(frame: pd.DataFrame, table: str, column: str) -> np.ndarray:
    if not pd.api.types.is_bool_dtype(frame[column]):
        raise BootstrapInputError(f"{table}: column {column!r} must be boolean, got dtype {frame[column].dtype}")
    return frame[column].to_numpy(dtype=bool)


def _check_values(frame: pd.DataFrame, table: str, column: str, allowed: tuple[str, ...]) -> None:
    bad = ~frame[column].isin(allowed).to_numpy(dtype=bool)
    if bad.any():
        examples = list(pd.unique(frame[column][bad]))
        raise _fail(table, f"value(s) in column {column!r} not in {allowed}", int(bad.sum()), examples)


def _factorize_sorted(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(codes, ids): ids sorted in code-point order, codes indexing them row by row."""
    codes, uniques = pd.factorize(column)
    uniques = np.asarray(uniques, dtype=object)
    order = np.argsort(uniques, kind="stable")
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return position[codes], uniques[order]


def _codes_in(column: pd.Series, ids: np.ndarray) -> np.ndarray:
    """Codes of column's values in ids (-1 when absent), looking up distinct values only."""
    codes, uniques = pd.factorize(column)
    return pd.Index(ids).get_indexer(np.asarray(uniques, dtype=object)).astype(np.int64)[codes]


def _check_duplicates(keys: np.ndarray, table: str, what: str, describe: Callable[[int], object]) -> None:
    order = np.argsort(keys, kind="stable")
    dup = order[1:][keys[order][1:] == keys[order][:-1]]
    if len(dup):
        raise _fail(table, f"duplicate {what} row(s)", len(dup), [describe(i) for i in dup[:_EXAMPLES]])


def _mixed_groups(group: np.ndarray, flag: np.ndarray, n_groups: int) -> np.ndarray:
    """Groups whose rows do not all share the same boolean flag."""
    total = np.bincount(group, minlength=n_groups)
    hits = np.bincount(group, weights=flag.astype(np.float64), minlength=n_groups)
    return np.flatnonzero((hits > 0) & (hits < total))


# --------------------------------------------------------------------------- design


def _build_design(cells: pd.DataFrame, dimension_cells: pd.DataFrame) -> _Design:
    """Validate both frames and build the per-task design matrix."""
    _check_columns(cells, "cells", CELL_COLUMNS)
    _check_columns(dimension_cells, "dimension_cells", DIMENSION_COLUMNS)
    if len(cells) == 0:
        raise BootstrapInputError("cells: 0 rows; need one row per (model_id, task_id)")
    _check_strings(cells, "cells", ("model_id", "task_id", "kind", "turn_type"))
    scores = _check_scores(cells, "cells", ("model_id", "task_id"))
    _check_values(cells, "cells", "kind", MODEL_KINDS)
    _check_values(cells, "cells", "turn_type", TURN_TYPES)
    recognized = _check_bool(cells, "cells", "is_recognized_with_routing")
    not_routed = _check_bool(cells, "cells", "is_not_routed") & recognized

    t, task_ids = _factorize_sorted(cells["task_id"])
    mo, model_ids = _factorize_sorted(cells["model_id"])
    n, m = len(task_ids), len(model_ids)

    def cell_key(i: int) -> tuple[str, str]:
        return (cells["model_id"].iat[i], cells["task_id"].iat[i])

    _check_duplicates(t * m + mo, "cells", "(model_id, task_id)", cell_key)
    if len(cells) != n * m:
        present = np.zeros((n, m), dtype=bool)
        present[t, mo] = True
        gaps = np.argwhere(~present)
        raise _fail(
            "cells",
            f"missing (model_id, task_id) cell(s) (every model needs a row for each of the {n} tasks)",
            len(gaps),
            [(model_ids[j], task_ids[i]) for i, j in gaps[:_EXAMPLES]],
        )
    is_ranked_row = cells["kind"].eq(RANKED_KIND).to_numpy(dtype=bool)
    is_single_row = cells["turn_type"].eq("single").to_numpy(dtype=bool)
    mixed = _mixed_groups(mo, is_ranked_row, m)
    if len(mixed):
        raise _fail("cells", "model_id(s) with more than one kind", len(mixed), list(model_ids[mixed]))
    mixed = _mixed_groups(t, is_single_row, n)
    if len(mixed):
        raise _fail("cells", "task_id(s) with more than one turn_type", len(mixed), list(task_ids[mixed]))

    model_is_ranked = np.zeros(m, dtype=bool)
    model_is_ranked[mo] = is_ranked_row
    ranked = np.flatnonzero(model_is_ranked)
    references = np.flatnonzero(~model_is_ranked)
    if len(ranked) == 0:
        raise BootstrapInputError("cells: 0 models of kind 'model'; need at least one to rank")
    if len(references) > 1:
        raise _fail(
            "cells",
            "models of kind 'clinician_reference' (at most one allowed)",
            len(references),
            list(model_ids[references]),
        )

    score_matrix = np.zeros((n, m))
    score_matrix[t, mo] = scores
    single = np.zeros(n)
    single[t] = is_single_row
    multi = 1.0 - single
    n_recognized = np.bincount(t, weights=recognized & is_ranked_row, minlength=n)
    n_not_routed = np.bincount(t, weights=not_routed & is_ranked_row, minlength=n)
    ranked_total = score_matrix[:, ranked].sum(axis=1)
    columns = [
        score_matrix,
        np.column_stack([ranked_total * single, ranked_total * multi, single, multi, n_not_routed, n_recognized]),
    ]

    dimensions, dimension_blocks = _dimension_blocks(dimension_cells, task_ids, model_ids, model_is_ranked)
    columns.extend(dimension_blocks)
    design = np.column_stack(columns)
    design, unscale = _exact_grid(design, n)
    reference = int(references[0]) if len(references) else None
    return _Design(task_ids, model_ids, ranked, reference, dimensions, design, unscale)


def _dimension_blocks(
    frame: pd.DataFrame,
    task_ids: np.ndarray,
    model_ids: np.ndarray,
    model_is_ranked: np.ndarray,
) -> tuple[tuple[str, ...], list[np.ndarray]]:
    """Per dimension: an n_tasks x n_ranked score block plus a 'task has it' mask column."""
    table = "dimension_cells"
    if len(frame) == 0:
        return (), []
    _check_strings(frame, table, ("model_id", "task_id", "dimension"))
    scores = _check_scores(frame, table, ("model_id", "task_id", "dimension"))
    t = _codes_in(frame["task_id"], task_ids)
    mo = _codes_in(frame["model_id"], model_ids)
    for column, codes in (("model_id", mo), ("task_id", t)):
        unknown = codes < 0
        if unknown.any():
            examples = list(pd.unique(frame[column][unknown]))
            raise _fail(table, f"row(s) whose {column} is not in cells", int(unknown.sum()), examples)
    d, dimensions = _factorize_sorted(frame["dimension"])
    n, m, k = len(task_ids), len(model_ids), len(dimensions)
    ranked = np.flatnonzero(model_is_ranked)

    def key(i: int) -> tuple[str, str, str]:
        return (frame["model_id"].iat[i], frame["task_id"].iat[i], frame["dimension"].iat[i])

    _check_duplicates((t * m + mo) * k + d, table, "(model_id, task_id, dimension)", key)
    is_ranked = model_is_ranked[mo]
    pair = t * k + d
    rows_per_pair = np.bincount(pair, minlength=n * k)
    ranked_per_pair = np.bincount(pair, weights=is_ranked, minlength=n * k)
    short = np.flatnonzero((rows_per_pair > 0) & (ranked_per_pair != len(ranked)))
    if len(short):
        examples = [
            f"({task_ids[p // k]!r}, {dimensions[p % k]!r}) has {int(ranked_per_pair[p])} of {len(ranked)}"
            for p in short[:_EXAMPLES]
        ]
        raise BootstrapInputError(
            f"{table}: {len(short)} (task_id, dimension) pair(s) lack a row for some model of kind 'model' "
            f"(a task that has a dimension needs a row for every ranked model); e.g. {'; '.join(examples)}"
        )
    position = np.full(m, -1)
    position[ranked] = np.arange(len(ranked))
    blocks: list[np.ndarray] = []
    for code in range(k):
        rows = (d == code) & is_ranked
        block = np.zeros((n, len(ranked) + 1))
        block[t[rows], position[mo[rows]]] = scores[rows]
        block[t[rows], -1] = 1.0
        blocks.append(block)
    return tuple(str(x) for x in dimensions), blocks


def _exact_grid(design: np.ndarray, n_tasks: int) -> tuple[np.ndarray, np.ndarray]:
    """Round each column to a power-of-two grid fine enough to keep every resampled sum exact.

    A resampled column sum is at most n_tasks * max|column| (the counts sum to n_tasks); with
    the column scaled by 2**e so that this bound is <= 2**52, every product and partial sum is
    an integer below 2**53, hence exact in float64 in any summation order.
    """
    top = np.abs(design).max(axis=0)
    with np.errstate(divide="ignore"):
        exponent = np.where(top > 0, 52 - np.ceil(np.log2(n_tasks * np.where(top > 0, top, 1.0))), 0)
    exponent = exponent.astype(np.int64)
    return np.rint(np.ldexp(design, exponent)), np.ldexp(1.0, -exponent)


# --------------------------------------------------------------------------- statistics


def _statistics(sums: np.ndarray, design: _Design, pairs: np.ndarray) -> np.ndarray:
    """Resamples x statistics: model means (model_ids order), _headline_names(), then pair differences."""
    n, m, k = design.n_tasks, design.n_models, design.n_ranked
    means = sums[:, :m] / n
    ranked = means[:, design.ranked]
    extra = sums[:, m : m + 6]
    with np.errstate(divide="ignore", invalid="ignore"):
        single = extra[:, 0] / (k * extra[:, 2])
        multi = extra[:, 1] / (k * extra[:, 3])
        rate = extra[:, 4] / extra[:, 5]
        out = [
            means,
            ranked.max(axis=1),
            np.median(ranked, axis=1),
        ]
        if design.reference is not None:
            out.append(means[:, design.reference])
        out.extend([rate, single, multi, multi - single])
        start = m + 6
        for _ in design.dimensions:
            block = sums[:, start : start + k + 1]
            start += k + 1
            scores = block[:, :k] / block[:, k:]
            out.extend([scores.max(axis=1), np.median(scores, axis=1)])
        out.append(ranked[:, pairs[:, 0]] - ranked[:, pairs[:, 1]])
    return np.column_stack(out)


def _headline_names(design: _Design) -> list[str]:
    names = ["best_model_score", "median_model_score"]
    if design.reference is not None:
        names.append("clinician_reference_score")
    names += ["recognized_not_routed_rate", "single_turn_score", "multi_turn_score", "multi_minus_single"]
    for dim in design.dimensions:
        names += [f"best_{dim}_score", f"median_{dim}_score"]
    return names


def _ranks(scores: np.ndarray) -> np.ndarray:
    """rank = 1 + number of models with a strictly higher score, per row; in row blocks."""
    b, k = scores.shape
    out = np.empty((b, k), dtype=np.int32)
    step = max(1, RANK_BYTES_BUDGET // max(1, k * k))
    for start in range(0, b, step):
        block = scores[start : start + step]
        out[start : start + step] = 1 + (block[:, None, :] > block[:, :, None]).sum(axis=2)
    return out


def _percentile_interval(draws: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Per column (alpha/2, 1 - alpha/2) quantiles, NaN resamples left out."""
    q = [alpha / 2, 1 - alpha / 2]
    bounds = np.quantile(draws, q, axis=0, method=SCORE_QUANTILE_METHOD)
    gaps = np.flatnonzero(np.isnan(draws).any(axis=0))
    if len(gaps):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN bounds
            bounds[:, gaps] = np.nanquantile(draws[:, gaps], q, axis=0, method=SCORE_QUANTILE_METHOD)
    return bounds[0], bounds[1]


def _draw_counts(rng: np.random.Generator, n_tasks: int, size: int) -> np.ndarray:
    """size x n_tasks float64 counts: row b counts n_tasks indices drawn uniformly."""
    index = rng.integers(0, n_tasks, size=(size, n_tasks), dtype=np.int64)
    index += (np.arange(size, dtype=np.int64) * n_tasks)[:, None]
    counts = np.bincount(index.ravel(), minlength=size * n_tasks).astype(np.float64)
    return counts.reshape(size, n_tasks)


def default_chunk_size(n_tasks: int) -> int:
    """Resamples per chunk so one copy of the count matrix stays within COUNT_BYTES_BUDGET."""
    return max(1, COUNT_BYTES_BUDGET // (8 * max(1, n_tasks)))


def run_bootstrap(
    cells: pd.DataFrame,
    dimension_cells: pd.DataFrame,
    *,
    samples: int = 10_000,
    seed: int = 20261101,
    alpha: float = 0.05,
    chunk_size: int | None = None,
) -> pd.DataFrame:
    """Joint task bootstrap of model scores, ranks, pair differences and headline metrics.

    cells: one row per (model, task) with model_id, task_id, kind, score, turn_type,
    is_recognized_with_routing, is_not_routed (only counted where recognized).
    dimension_cells: one row per (model, task, dimension) for the tasks that have the
    dimension: model_id, task_id, dimension, score. Extra columns are ignored.
    Returns columns statistic, model_id, other_model_id, estimate, ci_low, ci_high (see the
    module docstring for the method, ranking and tie conventions).
    """
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

    design = _build_design(cells, dimension_cells)
    n, m, k = design.n_tasks, design.n_models, design.n_ranked
    names = _headline_names(design)

    # Point estimates: the same exact path with every task drawn once.
    identity = np.ones((1, n)) @ design.design * design.unscale
    point_means = identity[0, :m] / n
    ranked_ids = design.model_ids[design.ranked]
    order = sorted(range(k), key=lambda j: (-point_means[design.ranked[j]], ranked_ids[j]))
    pairs = np.array([(order[i], order[i + 1]) for i in range(k - 1)], dtype=np.int64).reshape(-1, 2)
    point = _statistics(identity, design, pairs)[0]

    n_stats = len(point)
    draws = np.empty((samples, n_stats))
    ranks = np.empty((samples, k), dtype=np.int32)
    top_share = np.zeros(k)
    rng = np.random.Generator(np.random.PCG64(int(seed)))
    step = int(chunk_size) if chunk_size is not None else default_chunk_size(n)
    for start in range(0, samples, step):
        size = min(step, samples - start)
        counts = _draw_counts(rng, n, size)
        sums = (counts @ design.design) * design.unscale
        del counts
        stats = _statistics(sums, design, pairs)
        draws[start : start + size] = stats
        chunk_ranks = _ranks(stats[:, design.ranked])
        ranks[start : start + size] = chunk_ranks
        top = chunk_ranks == 1
        top_share += (top / top.sum(axis=1, keepdims=True)).sum(axis=0)

    low, high = _percentile_interval(draws, alpha)
    rank_mid, rank_low, rank_high = np.quantile(
        ranks, [0.5, alpha / 2, 1 - alpha / 2], axis=0, method=RANK_QUANTILE_METHOD
    )

    model_order = [int(design.ranked[j]) for j in order] + ([design.reference] if design.reference is not None else [])
    rows: list[tuple[str, str | None, str | None, float, float, float]] = []
    for i in model_order:
        rows.append(("model_score", design.model_ids[i], None, point[i], low[i], high[i]))
    for offset, name in enumerate(names):
        c = m + offset
        rows.append((name, None, None, point[c], low[c], high[c]))
    for j in order:
        rows.append(("rank", ranked_ids[j], None, float(rank_mid[j]), float(rank_low[j]), float(rank_high[j])))
    for j in order:
        rows.append(("p_rank_1", ranked_ids[j], None, top_share[j] / samples, math.nan, math.nan))
    for p, (a, b) in enumerate(pairs):
        c = m + len(names) + p
        rows.append(("pair_difference", ranked_ids[a], ranked_ids[b], point[c], low[c], high[c]))

    columns = list(zip(*rows, strict=False))
    return pd.DataFrame(
        {
            "statistic": pd.Series(columns[0], dtype="str"),
            "model_id": pd.Series(columns[1], dtype="str"),
            "other_model_id": pd.Series(columns[2], dtype="str"),
            "estimate": np.asarray(columns[3], dtype=np.float64),
            "ci_low": np.asarray(columns[4], dtype=np.float64),
            "ci_high": np.asarray(columns[5], dtype=np.float64),
        }
    )


# --------------------------------------------------------------------------- benchmark


def random_inputs(
    n_tasks: int, n_models: int, n_dimensions: int = 7, seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Random but valid inputs: n_models - 1 ranked models plus one clinician reference."""
    rng = np.random.default_rng(seed)
    tasks = np.array([f"task-{i:06d}" for i in range(n_tasks)], dtype=object)
    models = np.array([f"model-{j:03d}" for j in range(n_models)], dtype=object)
    kinds = np.array([RANKED_KIND] * (n_models - 1) + [REFERENCE_KIND], dtype=object)
    ability = rng.uniform(0.4, 0.95, n_models)
    scores = np.clip(ability[None, :] + rng.normal(0, 0.2, (n_tasks, n_models)), 0, 1)
    turn = np.where(rng.random(n_tasks) < 0.6, "single", "multi").astype(object)
    recognized = rng.random((n_tasks, n_models)) < 0.7
    not_routed = recognized & (rng.random((n_tasks, n_models)) < 0.35)
    cells = pd.DataFrame(
        {
            "model_id": pd.Series(np.tile(models, n_tasks), dtype="str"),
            "task_id": pd.Series(np.repeat(tasks, n_models), dtype="str"),
            "kind": pd.Series(np.tile(kinds, n_tasks), dtype="str"),
            "score": scores.ravel(),
            "turn_type": pd.Series(np.repeat(turn, n_models), dtype="str"),
            "is_recognized_with_routing": recognized.ravel(),
            "is_not_routed": not_routed.ravel(),
        }
    )
    has = rng.random((n_tasks, n_dimensions)) < 0.8
    t_idx, d_idx = np.nonzero(has)
    n_pairs = len(t_idx)
    dimension_cells = pd.DataFrame(
        {
            "model_id": pd.Series(np.tile(models, n_pairs), dtype="str"),
            "task_id": pd.Series(np.repeat(tasks[t_idx], n_models), dtype="str"),
            "dimension": pd.Series(
                np.repeat(np.array([f"dim_{x}" for x in range(n_dimensions)], dtype=object)[d_idx], n_models),
                dtype="str",
            ),
            "score": rng.random(n_pairs * n_models),
        }
    )
    return cells, dimension_cells


def benchmark(
    n_tasks: int, n_models: int, samples: int, repeats: int = 3, n_dimensions: int = 7
) -> dict[str, float | int]:
    """Median wall and CPU time of run_bootstrap over `repeats` runs, and its peak traced memory.

    Inputs come from random_inputs (built before timing). Peak memory is what tracemalloc sees
    numpy and Python allocate during one extra run (BLAS and Arrow buffers are not counted).
    """
    cells, dimension_cells = random_inputs(n_tasks, n_models, n_dimensions)
    times: list[float] = []
    cpu: list[float] = []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        run_bootstrap(cells, dimension_cells, samples=samples)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    tracemalloc.start()
    try:
        run_bootstrap(cells, dimension_cells, samples=samples)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {
        "n_tasks": n_tasks,
        "n_models": n_models,
        "n_dimensions": n_dimensions,
        "samples": samples,
        "seconds_median": pystats.median(times),
        "seconds_min": min(times),
        "cpu_seconds_median": pystats.median(cpu),
        "peak_traced_mib": peak / 2**20,
    }
