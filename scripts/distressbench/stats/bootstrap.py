"""Task-bootstrap percentile intervals for model scores, ranks and the headline metrics.

Method
- Tasks are resampled with replacement, B times. Tasks are ordered by task_id (code-point
  order) and models by model_id first, so nothing depends on the row order of the inputs.
- Resample b's task counts (``ResampleCounts``; the calibration bootstrap gets the same ones
  through ``run_bootstrap``'s ``on_counts``) follow numpy's documented way to run random
  streams in parallel: ``np.random.SeedSequence(seed).spawn(n_streams)`` gives one child per
  fixed block of RESAMPLES_PER_STREAM (100) resamples, and block s's resamples are the rows,
  in order, of ``np.random.Generator(np.random.PCG64(child_s)).integers(0, n_tasks,
  size=(resamples, n_tasks))``; ``counts[b, j]`` is how often task j (the j-th task_id)
  occurs in resample b's row. Streams are drawn by parallel threads, each carrying on where
  the previous chunk left it, so the counts depend on neither the thread count nor the
  chunks. Every statistic of resample b uses the same counts (a joint bootstrap), so paired
  differences and ranks are consistent with the score intervals.
- Resampled sums are one matrix product, ``counts @ design``, over a design matrix with one
  column per needed per-task sum (model scores, turn-type masks, recognized / not-routed
  counts, per-dimension scores and "task has the dimension" masks). Ratios such as a
  dimension score (sum c*s*has / sum c*has) or the recognized-but-not-routed rate are
  re-estimated as ratios in every resample.
- Each design column is put on a power-of-two grid (scores rounded to at most
  2**-(52 - ceil(log2(n_tasks * column max))), i.e. ~1e-13 at 718 tasks and ~1e-11 at
  72,000) so that every sum in the product is an exact integer in float64. The product is
  then exact, whatever the BLAS, thread count or chunk shape, and the output is bitwise
  identical for any ``chunk_size`` and number of threads. (float32 would halve the product's
  cost but holds integers exactly only up to 2**24: scores would have to be rounded to
  ~2**-24 / n_tasks, i.e. coarser than 1e-9 at 718 tasks, so it is not used.) Point
  estimates go through the same path with every count equal to 1; they equal a direct float
  computation to ~1e-12.
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

Inputs are the dbt models' rows, whose keys and values dbt tests already check; only what
would otherwise give a silently wrong result is checked again here (duplicate or missing
cells, a model with two kinds, a task with two turn types, dimension rows that do not cover
every ranked model, null or out-of-range scores), plus a clear error for no ranked model.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from distressbench import settings
from distressbench.release.contract import MODEL_KINDS

if TYPE_CHECKING:
    from duckdb import DuckDBPyRelation

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
# One float64 copy of the count matrix per chunk (the product reads it as it is).
COUNT_BYTES_BUDGET = 128 * 2**20
# Resamples drawn from one random stream (SeedSequence.spawn child): fixed, so that the
# draws depend neither on the thread count nor on the chunks; small enough that one chunk
# of resamples spans several streams for the threads to draw.
RESAMPLES_PER_STREAM = 100
# Threads that draw and count, one stream at a time; the result does not depend on it.
DRAW_THREADS = max(1, min(os.cpu_count() or 1, 8))
# Task indices drawn and counted by one round of numpy calls (several resamples when tasks are few).
BATCH_VALUES = 2**16
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


# --------------------------------------------------------------------------- checks


def _fail(table: str, problem: str, count: int, examples: list[object]) -> BootstrapInputError:
    shown = ", ".join(repr(e) for e in examples[:_EXAMPLES])
    return BootstrapInputError(f"{table}: {count} {problem}; e.g. {shown}")


def _require(frame: pd.DataFrame, table: str, required: tuple[str, ...]) -> None:
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise BootstrapInputError(f"{table}: {len(missing)} missing column(s): {', '.join(missing)}")
    for column in required:
        nulls = frame[column].isna().to_numpy()
        if nulls.any():
            rows = np.flatnonzero(nulls)
            raise _fail(table, f"null value(s) in column {column!r} at row position(s)", len(rows), list(rows))


def _scores(frame: pd.DataFrame, table: str, keys: tuple[str, ...]) -> np.ndarray:
    scores = frame["score"].to_numpy(dtype=np.float64)
    bad = ~((scores >= 0.0) & (scores <= 1.0))
    if bad.any():
        rows = frame.loc[bad, [*keys, "score"]].head(_EXAMPLES)
        raise _fail(table, "score(s) outside [0, 1]", int(bad.sum()), list(rows.itertuples(index=False, name=None)))
    return scores


def _flag(frame: pd.DataFrame, table: str, column: str) -> np.ndarray:
    if not pd.api.types.is_bool_dtype(frame[column]):
        raise BootstrapInputError(f"{table}: column {column!r} must be boolean, got dtype {frame[column].dtype}")
    return frame[column].to_numpy(dtype=bool)


def _coded(column: pd.Series, table: str, allowed: tuple[str, ...]) -> np.ndarray:
    """Row by row, the position of the column's value in `allowed`."""
    codes, uniques = pd.factorize(column)
    position = pd.Index(allowed).get_indexer(np.asarray(uniques, dtype=object))
    if (position < 0).any():
        bad = np.flatnonzero(position < 0)
        count = int(np.isin(codes, bad).sum())
        raise _fail(table, f"value(s) in column {column.name!r} not in {allowed}", count, list(uniques[bad]))
    return position[codes]


def _arrow(column: pd.Series) -> pa.Array | pa.ChunkedArray:
    """The column as Arrow: without a copy when pandas already holds it in Arrow."""
    array = column.array
    return array.__arrow_array__() if hasattr(array, "__arrow_array__") else pa.array(column, from_pandas=True)


def _dictionary(column: pd.Series) -> pa.DictionaryArray:
    """The column dictionary-encoded: a categorical column as it is, any other through Arrow's
    dictionary encoding (one hash look-up per row, about a third of pandas.factorize's time)."""
    values = _arrow(column)
    encoded = values if pa.types.is_dictionary(values.type) else pc.dictionary_encode(values)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.unify_dictionaries().combine_chunks()
    return encoded


def _factorize_sorted(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(codes, ids): the ids that occur, sorted in code-point order, and codes indexing them
    row by row (a categorical column's categories that no row has are left out)."""
    encoded = _dictionary(column)
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    uniques = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
    used = np.flatnonzero(np.bincount(indices, minlength=len(uniques)))
    order = used[np.argsort(uniques[used], kind="stable")]
    position = np.full(len(uniques), -1, dtype=np.int64)
    position[order] = np.arange(len(order))
    return position[indices], uniques[order]


def codes_in(column: pd.Series, ids: np.ndarray) -> np.ndarray:
    """Codes of column's values in ids (-1 when absent): each distinct value looked up once."""
    encoded = _dictionary(column)
    values = encoded.dictionary
    found = pc.index_in(values, value_set=pa.array(ids).cast(values.type))
    return found.fill_null(-1).to_numpy().astype(np.int64)[encoded.indices.to_numpy(zero_copy_only=False)]


def _duplicates(keys: np.ndarray, n_keys: int) -> np.ndarray:
    """Row positions whose key already occurred in an earlier row."""
    seen = np.zeros(n_keys, dtype=bool)
    seen[keys] = True
    if int(seen.sum()) == len(keys):
        return np.empty(0, dtype=np.int64)
    _, first = np.unique(keys, return_index=True)
    repeated = np.ones(len(keys), dtype=bool)
    repeated[first] = False
    return np.flatnonzero(repeated)


def _mixed_groups(group: np.ndarray, flag: np.ndarray, n_groups: int) -> np.ndarray:
    """Groups whose rows do not all share the same boolean flag."""
    total = np.bincount(group, minlength=n_groups)
    hits = np.bincount(group, weights=flag, minlength=n_groups)
    return np.flatnonzero((hits > 0) & (hits < total))


# --------------------------------------------------------------------------- design


def _build_design(cells: pd.DataFrame, dimension_cells: pd.DataFrame) -> _Design:
    """Check both frames and build the per-task design matrix."""
    _require(cells, "cells", CELL_COLUMNS)
    _require(dimension_cells, "dimension_cells", DIMENSION_COLUMNS)
    if len(cells) == 0:
        raise BootstrapInputError("cells: 0 rows; need one row per (model_id, task_id)")
    scores = _scores(cells, "cells", ("model_id", "task_id"))
    is_ranked_row = _coded(cells["kind"], "cells", MODEL_KINDS) == MODEL_KINDS.index(RANKED_KIND)
    is_single_row = _coded(cells["turn_type"], "cells", TURN_TYPES) == TURN_TYPES.index("single")
    recognized = _flag(cells, "cells", "is_recognized_with_routing")
    not_routed = _flag(cells, "cells", "is_not_routed") & recognized

    t, task_ids = _factorize_sorted(cells["task_id"])
    mo, model_ids = _factorize_sorted(cells["model_id"])
    n, m = len(task_ids), len(model_ids)
    duplicates = _duplicates(t * m + mo, n * m)
    if len(duplicates):
        keys = [(model_ids[mo[i]], task_ids[t[i]]) for i in duplicates[:_EXAMPLES]]
        raise _fail("cells", "duplicate (model_id, task_id) row(s)", len(duplicates), keys)
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
        raise BootstrapInputError(
            f"cells: 0 models of kind 'model' among {m} model(s) (e.g. {', '.join(map(repr, model_ids[:_EXAMPLES]))}); "
            "need at least one to rank"
        )
    if len(references) > 1:
        problem = "models of kind 'clinician_reference' (at most one allowed)"
        raise _fail("cells", problem, len(references), list(model_ids[references]))

    score_matrix = np.zeros((n, m))
    score_matrix[t, mo] = scores
    single = np.zeros(n)
    single[t] = is_single_row
    multi = 1.0 - single
    n_recognized = np.bincount(t, weights=recognized & is_ranked_row, minlength=n)
    n_not_routed = np.bincount(t, weights=not_routed & is_ranked_row, minlength=n)
    ranked_total = score_matrix[:, ranked].sum(axis=1)
    per_task = [ranked_total * single, ranked_total * multi, single, multi, n_not_routed, n_recognized]
    columns = [score_matrix, np.column_stack(per_task)]

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
    scores = _scores(frame, table, ("model_id", "task_id", "dimension"))
    with ThreadPoolExecutor(max_workers=3) as pool:  # hashing millions of ids releases the GIL
        coding = [pool.submit(codes_in, frame[c], ids) for c, ids in (("task_id", task_ids), ("model_id", model_ids))]
        dimension_coding = pool.submit(_factorize_sorted, frame["dimension"])
        t, mo = (job.result() for job in coding)
        d, dimensions = dimension_coding.result()
    for column, codes in (("model_id", mo), ("task_id", t)):
        unknown = codes < 0
        if unknown.any():
            examples = list(pd.unique(frame[column][unknown]))
            raise _fail(table, f"row(s) whose {column} is not in cells", int(unknown.sum()), examples)
    n, m, k = len(task_ids), len(model_ids), len(dimensions)
    ranked = np.flatnonzero(model_is_ranked)

    pair = d * n + t  # dimension-major, the order of the blocks below
    duplicates = _duplicates(pair * m + mo, k * n * m)
    if len(duplicates):
        keys = [(model_ids[mo[i]], task_ids[t[i]], dimensions[d[i]]) for i in duplicates[:_EXAMPLES]]
        raise _fail(table, "duplicate (model_id, task_id, dimension) row(s)", len(duplicates), keys)
    rows_per_pair = np.bincount(pair, minlength=k * n)
    ranked_per_pair = np.bincount(pair, weights=model_is_ranked[mo], minlength=k * n)
    short = np.flatnonzero((rows_per_pair > 0) & (ranked_per_pair != len(ranked)))
    if len(short):
        examples = [
            f"({task_ids[p % n]!r}, {dimensions[p // n]!r}) has {int(ranked_per_pair[p])} of {len(ranked)}"
            for p in short[:_EXAMPLES]
        ]
        raise BootstrapInputError(
            f"{table}: {len(short)} (task_id, dimension) pair(s) lack a row for some model of kind 'model' "
            f"(a task that has a dimension needs a row for every ranked model); e.g. {'; '.join(examples)}"
        )
    # One n_tasks x (n_ranked + 1) block per dimension: ranked models' scores, then the mask
    # (the pair has rows, hence one for every ranked model). Other models' rows land in a
    # scratch slot that is cut off, so every row is placed by one flat scattered write.
    width = len(ranked) + 1
    slot = np.full(m, width)
    slot[ranked] = np.arange(len(ranked))
    blocks = np.zeros((k * n, width + 1))
    blocks.reshape(-1)[pair * (width + 1) + slot[mo]] = scores
    blocks[:, width - 1] = rows_per_pair > 0
    return tuple(str(x) for x in dimensions), list(blocks.reshape(k, n, width + 1)[:, :, :width])


def _exact_grid(design: np.ndarray, n_tasks: int) -> tuple[np.ndarray, np.ndarray]:
    """Round each column to a power-of-two grid fine enough to keep every resampled sum exact.

    A resampled column sum is at most n_tasks * max|column| (the counts sum to n_tasks); with
    the column scaled by 2**e so that this bound is <= 2**52, every product and partial sum is
    an integer below 2**53, hence exact in float64 in any summation order.
    """
    top = design.max(axis=0)  # every column is >= 0 (scores in [0, 1], masks and counts)
    with np.errstate(divide="ignore"):
        exponent = np.where(top > 0, 52 - np.ceil(np.log2(n_tasks * np.where(top > 0, top, 1.0))), 0)
    exponent = exponent.astype(np.int64)
    np.rint(np.ldexp(design, exponent, out=design), out=design)  # in place: design is ours
    return design, np.ldexp(1.0, -exponent)


# --------------------------------------------------------------------------- draws


class ResampleCounts:
    """The task counts of resamples 0 to samples - 1, handed out in resample order.

    Resample b is drawn from stream b // RESAMPLES_PER_STREAM, the generator
    ``np.random.Generator(np.random.PCG64(child))`` of that child of
    ``np.random.SeedSequence(seed).spawn(n_streams)``: a stream's resamples are the rows of
    ``integers(0, n_tasks, size=(resamples, n_tasks))``, and the counts of a row are how often
    each task index occurs in it. Streams are drawn in parallel (DRAW_THREADS, or `threads`),
    a few rows per call; a stream's generator carries on where the previous chunk left it, so
    the counts do not depend on the thread count or on how the resamples are cut into chunks.
    """

    def __init__(self, seed: int, n_tasks: int, samples: int, *, threads: int | None = None) -> None:
        self._per_stream = RESAMPLES_PER_STREAM
        children = np.random.SeedSequence(seed).spawn(math.ceil(samples / self._per_stream))
        self._streams = [np.random.Generator(np.random.PCG64(child)) for child in children]
        self._n_tasks = n_tasks
        self._samples = samples
        self._threads = threads or DRAW_THREADS
        self._done = 0

    def take(self, size: int, out: np.ndarray | None = None) -> np.ndarray:
        """size x n_tasks float64 counts of the next `size` resamples (in `out`'s first rows if given)."""
        if self._done + size > self._samples:
            raise ValueError(f"{self._done} of {self._samples} resamples were taken; {size} more is too many")
        counts = np.empty((size, self._n_tasks)) if out is None else out[:size]
        start, self._done = self._done, self._done + size
        segments = []  # (first, last + 1) resample of each stream's part of the chunk
        lo = start
        while lo < start + size:
            hi = min(start + size, (lo // self._per_stream + 1) * self._per_stream)
            segments.append((lo, hi))
            lo = hi
        with ThreadPoolExecutor(max_workers=self._threads) as pool:
            jobs = [
                pool.submit(self._count, self._streams[lo // self._per_stream], counts[lo - start : hi - start])
                for lo, hi in segments
            ]
            for job in jobs:
                job.result()
        return counts

    def _count(self, stream: np.random.Generator, out: np.ndarray) -> None:
        """Fill out's rows with the counts of the stream's next len(out) rows of task indices."""
        n = self._n_tasks
        step = max(1, BATCH_VALUES // n)
        for lo in range(0, len(out), step):
            rows = min(step, len(out) - lo)
            index = stream.integers(0, n, size=(rows, n))
            index += np.arange(0, rows * n, n)[:, np.newaxis]  # row r's indices count into r * n + task
            out[lo : lo + rows] = np.bincount(index.ravel(), minlength=rows * n).reshape(rows, n)


def default_chunk_size(n_tasks: int) -> int:
    """Resamples per chunk so one copy of the count matrix stays within COUNT_BYTES_BUDGET."""
    return max(1, COUNT_BYTES_BUDGET // (8 * max(1, n_tasks)))


# --------------------------------------------------------------------------- inputs


def read_inputs(
    cells: DuckDBPyRelation, triaged: DuckDBPyRelation, dimensions: DuckDBPyRelation
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(cells, dimension_cells) for run_bootstrap, from DuckDB relations of the dbt models
    int_cells_scored, int_cells_triaged and int_cell_dimensions_scored (dbt.ref's in the Python
    model, where dbt finds its dependencies; tables of a built warehouse in the benchmark).

    Through Arrow, with string columns as categoricals, so each distinct id is held once. The
    dimension rows come by response_key alone and take their cell's model_id and task_id
    here, rather than as millions of id strings from DuckDB.
    """
    cell_frame = (
        cells.set_alias("cells")
        .join(triaged.set_alias("triaged"), "cells.response_key = triaged.response_key")
        .select(
            "cells.response_key, cells.model_id, cells.task_id, cells.kind, cells.score, cells.turn_type, "
            "triaged.is_counted as is_recognized_with_routing, triaged.is_recognized_not_routed as is_not_routed"
        )
        .to_arrow_table()
        .to_pandas(strings_to_categorical=True)
    )
    keyed = dimensions.select("response_key, dimension, score").to_arrow_table().to_pandas(strings_to_categorical=True)
    return cell_frame, with_cell_ids(cell_frame, keyed)


def with_cell_ids(cells: pd.DataFrame, keyed: pd.DataFrame) -> pd.DataFrame:
    """keyed's rows with the model_id and task_id (categoricals) of the cell in `cells` that
    has their response_key, the replies' dense surrogate key (1 to the number of replies, so
    a look-up array of that size finds each row's cell)."""
    keys = cells["response_key"].to_numpy(dtype=np.int64)
    wanted = keyed["response_key"].to_numpy(dtype=np.int64)
    if min(keys.min(initial=0), wanted.min(initial=0)) < 0:
        raise BootstrapInputError("cells, dimension_cells: a negative response_key (the keys are 1 and up)")
    row_of_key = np.full(max(keys.max(initial=0), wanted.max(initial=0)) + 1, -1)
    row_of_key[keys] = np.arange(len(keys))
    rows = row_of_key[wanted]
    missing = np.flatnonzero(rows < 0)
    if len(missing):
        problem = "row(s) whose response_key is not in cells"
        raise _fail("dimension_cells", problem, len(missing), wanted[missing].tolist())
    frame = keyed.drop(columns="response_key")
    for position, column in enumerate(("model_id", "task_id")):
        ids = cells[column].cat
        codes = np.asarray(ids.codes)[rows]
        frame.insert(position, column, pd.Categorical.from_codes(codes, categories=ids.categories))
    return frame


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
    """rank = 1 + number of models with a strictly higher score, per row.

    Each row is sorted once, best first; a score's rank is 1 + the position of the first
    score equal to it in that order (so exact ties share the better rank), found by carrying
    forward the position where each run of equal scores starts. O(k log k) per row, not the
    O(k**2) of comparing every pair of models."""
    b, k = scores.shape
    order = np.argsort(-scores, axis=1, kind="stable")
    ordered = np.take_along_axis(scores, order, axis=1)
    run_start = np.broadcast_to(np.arange(k, dtype=np.int32), (b, k)).copy()
    run_start[:, 1:][ordered[:, 1:] == ordered[:, :-1]] = 0
    np.maximum.accumulate(run_start, axis=1, out=run_start)
    ranks = np.empty((b, k), dtype=np.int32)
    np.put_along_axis(ranks, order, run_start + 1, axis=1)
    return ranks


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


def run_bootstrap(
    cells: pd.DataFrame,
    dimension_cells: pd.DataFrame,
    *,
    samples: int | None = None,
    seed: int | None = None,
    alpha: float | None = None,
    chunk_size: int | None = None,
    on_counts: Callable[[np.ndarray, np.ndarray], None] | None = None,
) -> pd.DataFrame:
    """Joint task bootstrap of model scores, ranks, pair differences and headline metrics.

    cells: one row per (model, task) with model_id, task_id, kind, score, turn_type,
    is_recognized_with_routing, is_not_routed (only counted where recognized).
    dimension_cells: one row per (model, task, dimension) for the tasks that have the
    dimension: model_id, task_id, dimension, score. Extra columns are ignored.
    Returns columns statistic, model_id, other_model_id, estimate, ci_low, ci_high (see the
    module docstring for the method, ranking and tie conventions).
    on_counts(counts, task_ids), if given, sees each chunk of resample counts in resample
    order (columns: the sorted task ids it is given), so that another bootstrap over the same
    tasks (CalibrationResamples.add) shares the draws; the array is reused for the next chunk.
    samples, seed and alpha default to the vars bootstrap_samples, bootstrap_seed and
    bootstrap_alpha of dbt_project.yml (the dbt model passes the vars dbt was given).
    """
    samples = settings.dbt_var("bootstrap_samples") if samples is None else samples
    seed = settings.dbt_var("bootstrap_seed") if seed is None else seed
    alpha = settings.dbt_var("bootstrap_alpha") if alpha is None else alpha
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
    resamples = ResampleCounts(int(seed), n, samples)
    step = min(samples, int(chunk_size) if chunk_size is not None else default_chunk_size(n))
    counts = np.empty((step, n))
    for start in range(0, samples, step):
        size = min(step, samples - start)
        drawn = resamples.take(size, out=counts)
        if on_counts is not None:
            on_counts(drawn, design.task_ids)
        sums = (drawn @ design.design) * design.unscale
        stats = _statistics(sums, design, pairs)
        draws[start : start + size] = stats
        chunk_ranks = _ranks(stats[:, design.ranked])
        ranks[start : start + size] = chunk_ranks
        top = chunk_ranks == 1
        top_share += (top / top.sum(axis=1, keepdims=True)).sum(axis=0)

    low, high = _percentile_interval(draws, alpha)
    rank_q = [0.5, alpha / 2, 1 - alpha / 2]
    rank_mid, rank_low, rank_high = np.quantile(ranks, rank_q, axis=0, method=RANK_QUANTILE_METHOD)

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

    columns = list(zip(*rows, strict=True))
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
