"""Task-bootstrap percentile intervals for the judge calibration (agreement, kappa, F1).

Method
- Resample b's task counts are the leaderboard bootstrap's (distressbench.stats.bootstrap): the
  build's run_bootstrap hands each chunk of counts it draws (over ALL tasks of the release
  sorted by task_id, code-point order) to CalibrationResamples.add. So resample b of the
  calibration and resample b of the leaderboard reweight the same tasks (a joint
  bootstrap), and the counts are drawn once.
- Per task and per dimension, the calibrated pairs' confusion counts (TP, FP, FN, TN; pairs
  whose clinicians tie are left out beforehand) form an integer design matrix (sparse when
  mostly zeros, as per model); a resample's counts are ``counts @ design``, exact in
  float64, and 'all' is the sum of the dimensions' counts.
  Agreement, Cohen's kappa and F1 are re-estimated from them in every resample, with the
  formulas of marts.judge_calibration; a resample in which a statistic is undefined (no
  pair drawn, chance agreement 1, no positive) gives NaN, left out of its quantiles.
- Intervals: ``np.nanquantile(..., [alpha/2, 1 - alpha/2], method="linear")``; NaN when the
  statistic is undefined in every resample. Point estimates are the mart's, not computed here.
- With ``by="model_id"`` (marts.judge_calibration_by_model) the groups are each model's
  pairs over all dimensions and per dimension, every model with every dimension present in
  the pairs; a model x dimension without pairs gets NaN intervals. Its resamples reweight
  the same tasks, so a model's pairs move together with every other statistic's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import sparse

from distressbench.errors import DistressbenchError
from distressbench.stats.coding import codes_in

PAIR_COLUMNS = ("task_id", "dimension", "is_judge_met", "is_gold_met")
STATISTICS = ("agreement", "kappa", "f1")  # in the order _statistics returns them
OUTPUT_COLUMNS = (
    "dimension",
    "agreement_ci_low",
    "agreement_ci_high",
    "kappa_ci_low",
    "kappa_ci_high",
    "f1_ci_low",
    "f1_ci_high",
)
OVERALL = "all"
QUANTILE_METHOD = "linear"
# The design is kept sparse when fewer than this share of its cells are non-zero: a sparse
# product is the cheaper one for a sparse design (per model), a dense product for a dense one
# (overall).
SPARSE_BELOW = 0.1
# Resampled confusion counts worked on at once: `add` goes through a chunk of resamples in
# blocks of about this many values, so its temporaries stay small whatever the chunk.
BLOCK_VALUES = 2**18
_EXAMPLES = 3


class CalibrationInputError(DistressbenchError, ValueError):
    """The tasks or calibrated pairs handed to CalibrationResamples break an assumption."""


def _validate(
    task_ids: pd.Series, pairs: pd.DataFrame, columns: tuple[str, ...] = PAIR_COLUMNS
) -> tuple[np.ndarray, np.ndarray]:
    """(sorted task ids, each pair's task position), or a CalibrationInputError."""
    if task_ids.isna().any() or not all(isinstance(t, str) for t in task_ids):
        bad = [t for t in task_ids if not isinstance(t, str)][:_EXAMPLES]
        raise CalibrationInputError(f"tasks: task_id must be non-null strings; e.g. {bad!r}")
    tasks = np.array(sorted(task_ids), dtype=object)
    if len(tasks) == 0:
        raise CalibrationInputError("tasks: 0 rows; the bootstrap resamples tasks")
    duplicated = tasks[1:][tasks[1:] == tasks[:-1]]
    if len(duplicated):
        raise CalibrationInputError(
            f"tasks: {len(duplicated)} duplicate task_id(s); e.g. {list(duplicated[:_EXAMPLES])!r}"
        )
    missing = [c for c in columns if c not in pairs.columns]
    if missing:
        raise CalibrationInputError(f"calibration pairs: missing column(s) {', '.join(missing)}")
    for column in columns:
        nulls = pairs[column].isna()
        if nulls.any():
            examples = pairs.loc[nulls, ["task_id", "dimension"]].head(_EXAMPLES).to_records(index=False).tolist()
            raise CalibrationInputError(
                f"calibration pairs: {int(nulls.sum())} null value(s) in column {column!r}; e.g. {examples!r}"
            )
    position = codes_in(pairs["task_id"], tasks)
    unknown = position < 0
    if unknown.any():
        examples = list(pd.unique(pairs["task_id"][unknown]))[:_EXAMPLES]
        raise CalibrationInputError(
            f"calibration pairs: {int(unknown.sum())} pair(s) whose task_id is not a task; e.g. {examples!r}"
        )
    return tasks, position


def _statistics(confusion: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Agreement, kappa, F1 from (..., 4) counts TP, FP, FN, TN; NaN where undefined."""
    tp, fp, fn, tn = (confusion[..., i] for i in range(4))
    n = tp + fp + fn + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        agreement = (tp + tn) / n
        judge_met, gold_met = (tp + fp) / n, (tp + fn) / n
        chance = judge_met * gold_met + (1 - judge_met) * (1 - gold_met)
        kappa = np.where(chance == 1, np.nan, (agreement - chance) / (1 - chance))
        f1 = 2 * tp / (2 * tp + fp + fn)
    return agreement, kappa, f1


class CalibrationResamples:
    """The calibration statistics of each resample, filled chunk by chunk from the task counts.

    task_ids: every task of the release. pairs: one row per calibrated pair with a gold
    label (clinician ties dropped): task_id, dimension, is_judge_met, is_gold_met (and the
    column `by` names, if any). `add` takes the next chunk of resample counts (rows:
    resamples in order; columns: the tasks by task_id, named by `task_order`); in the build
    it is the leaderboard bootstrap's (run_bootstrap's on_counts), which so draws the counts
    once for all.
    """

    def __init__(self, task_ids: pd.Series, pairs: pd.DataFrame, *, samples: int, by: str | None = None) -> None:
        if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
            raise CalibrationInputError(f"samples must be a positive integer, got {samples!r}")
        self.by = by
        self.tasks, position = _validate(task_ids, pairs, PAIR_COLUMNS if by is None else (*PAIR_COLUMNS, by))
        dimensions = sorted(str(d) for d in pd.unique(pairs["dimension"]))
        per_key = [OVERALL, *dimensions]
        keys = [""] if by is None else sorted(str(k) for k in pd.unique(pairs[by]))
        self.keys = [k for k in keys for _ in per_key]
        self.groups = per_key * len(keys)
        judge = pairs["is_judge_met"].to_numpy(dtype=bool)
        gold = pairs["is_gold_met"].to_numpy(dtype=bool)
        cell = np.select([judge & gold, judge & ~gold, ~judge & gold], [0, 1, 2], default=3)
        dimension_of = codes_in(pairs["dimension"].astype(str), np.array(per_key, dtype=object))
        key_of = (
            np.zeros(len(pairs), dtype=np.int64)
            if by is None
            else codes_in(pairs[by].astype(str), np.array(keys, dtype=object))
        )
        # one column per (key, dimension, cell); a key's 'all' is the sum of its dimensions'
        # counts, added up after the product
        self._shape = (len(keys), len(dimensions), 4)
        column = ((key_of * len(dimensions)) + dimension_of - 1) * 4 + cell
        size = (len(self.tasks), int(np.prod(self._shape)))
        design = sparse.csr_array((np.ones(len(pairs)), (position, column)), shape=size)
        # per model, a task holds few of the columns' pairs: the sparse product is the cheaper
        self._design = design if design.nnz < SPARSE_BELOW * size[0] * size[1] else design.toarray()
        self._draws = np.empty((len(STATISTICS), samples, len(self.groups)))
        self._done = 0

    def add(self, counts: np.ndarray, task_order: np.ndarray) -> None:
        """The statistics of the next len(counts) resamples; task_order names counts' columns."""
        if not np.array_equal(task_order, self.tasks):
            raise CalibrationInputError(
                f"the resamples count {len(task_order)} tasks, the calibration has {len(self.tasks)} "
                "(or other task ids): both must resample every task of the release"
            )
        rows = max(1, BLOCK_VALUES // max(1, int(np.prod(self._shape))))
        for lo in range(0, len(counts), rows):
            block = counts[lo : lo + rows]
            by_dimension = np.asarray(block @ self._design).reshape(len(block), *self._shape)
            overall = by_dimension.sum(axis=2, keepdims=True)  # exact: integer-valued sums
            confusion = np.concatenate([overall, by_dimension], axis=2).reshape(len(block), len(self.groups), 4)
            for i, values in enumerate(_statistics(confusion)):
                self._draws[i, self._done : self._done + len(block)] = values
            self._done += len(block)

    def intervals(self, alpha: float) -> pd.DataFrame:
        """OUTPUT_COLUMNS, one row per dimension present (sorted) and one for 'all' (per key
        of `by`, first column, when given)."""
        if not 0.0 < float(alpha) < 1.0:
            raise CalibrationInputError(f"alpha must be in (0, 1), got {alpha!r}")
        if self._done != self._draws.shape[1]:
            raise CalibrationInputError(f"{self._done} of {self._draws.shape[1]} resamples were added")
        quantiles = [alpha / 2, 1 - alpha / 2]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN bounds
            bounds = [
                np.nanquantile(d, quantiles, axis=0, method=QUANTILE_METHOD).reshape(2, len(self.groups))
                for d in self._draws
            ]
        frame = {"dimension": pd.Series(self.groups, dtype="str")}
        for name, (low, high) in zip(STATISTICS, bounds, strict=True):
            frame[f"{name}_ci_low"] = low
            frame[f"{name}_ci_high"] = high
        if self.by is None:
            return pd.DataFrame(frame)[list(OUTPUT_COLUMNS)]
        frame[self.by] = pd.Series(self.keys, dtype="str")
        return pd.DataFrame(frame)[[self.by, *OUTPUT_COLUMNS]]
