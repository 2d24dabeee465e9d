"""Scores anchored to the clinicians: prediction-powered estimates (PPI, Angelopoulos et al.
2023, lambda = 1) of each model's score, each model's dimension scores and the headline best,
median and clinician-reference scores, with percentile intervals from the leaderboard's task
bootstrap.

Method
- A group is a model's score over all its criteria ('all') or over one dimension's. Its
  judge-only value is the mean over the group's tasks of the cell score,
  sum_c w_c f_c / W_t (W_t the weight of the task's criteria in the group). On the
  calibrated pairs (the clinicians' majority label Y beside the judge's verdict f; ties
  dropped) each task adds two sums: D_t = sum_c (w_c / W_t)(Y_c - f_c) and
  N_t = sum_c w_c / W_t. The anchored value is
  judge-only value + sum_t D_t / sum_t N_t,
  the judge's value plus the calibrated pairs' weighted mean correction (the ratio form of
  PPI's rectifier, each pair weighted as it counts in the score).
- In resample b with task counts c_t every sum is re-taken with those counts: the mean is
  sum_t c_t s_t / sum_t c_t h_t (h_t = 1 when the task has the group's criteria), the
  correction sum_t c_t D_t / sum_t c_t N_t. The counts are the leaderboard's
  (run_bootstrap's on_counts), so resample b reweights the same tasks for every statistic.
  Per-task columns: a dense block of cell scores and "task has it" masks, and a sparse block
  of D and N (few tasks hold a calibrated pair of a given model); a chunk's sums are two
  matrix products.
- The per-dimension groups (by_dimension; var anchored_by_dimension in the build) cost a
  dense column per model and dimension and a sparse block of their D and N; the 'all'
  groups' D and N are dense columns (most tasks hold a calibrated pair of each model).
- A group with fewer than min_pairs calibrated pairs gets no anchored value. The headline
  rows take, within each resample, the best and the median anchored score over the ranked
  models that have one (per dimension likewise), and the clinician reference's. A resample
  in which a statistic has no calibrated pair drawn gives NaN, left out of its quantiles.
- Intervals: percentile, as the leaderboard's (estimates.percentile_interval). Point
  estimates go through the same path with every count equal to 1. A score lies in [0, 1];
  the correction can carry an estimate or an interval end past it, so both are cut to
  [0, 1] (an interval cut to the set the score lies in covers it as often).

Assumption: within each model and dimension the calibrated pairs are a random share of the
pairs; docs/judge-reliability.md shows a check of it (marts.anchored_labelling_check).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from distressbench.errors import DistressbenchError
from distressbench.stats.bootstrap.design import cell_roles, ranked_and_reference
from distressbench.stats.bootstrap.estimates import percentile_interval
from distressbench.stats.coding import codes_in, factorize_sorted

CELL_COLUMNS = ("model_id", "task_id", "kind", "score")
DIMENSION_COLUMNS = ("model_id", "task_id", "dimension", "score")
PAIR_COLUMNS = (
    "model_id",
    "task_id",
    "dimension",
    "weight",
    "task_weight",
    "dimension_weight",
    "is_judge_met",
    "is_gold_met",
)
OUTPUT_COLUMNS = ("statistic", "model_id", "dimension", "estimate", "ci_low", "ci_high")
OVERALL = "all"
# Resample sums worked on at once: `add` goes through a chunk in blocks of about this many values.
BLOCK_VALUES = 2**20
_EXAMPLES = 3


class AnchoredInputError(DistressbenchError):
    """The cells or calibrated pairs handed to AnchoredResamples break an assumption."""


def anchored_values(
    score_sums: np.ndarray, has_sums: np.ndarray, correction_sums: np.ndarray, mass_sums: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(judge-only, anchored) from one resample's per-task sums (any shape, element-wise):
    sum c_t s_t, sum c_t h_t, sum c_t D_t and sum c_t N_t; NaN where a denominator is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        judge = score_sums / has_sums
        return judge, judge + correction_sums / mass_sums


def _require(frame: pd.DataFrame, table: str, columns: tuple[str, ...]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise AnchoredInputError(f"{table}: missing column(s) {', '.join(missing)}")
    for column in columns:
        nulls = frame[column].isna().to_numpy()
        if nulls.any():
            examples = frame.loc[nulls, ["model_id", "task_id"]].head(_EXAMPLES).to_records(index=False).tolist()
            problem = f"{int(nulls.sum())} null value(s) in column {column!r}"
            raise AnchoredInputError(f"{table}: {problem}; e.g. {examples!r}")


def _codes(frame: pd.DataFrame, table: str, column: str, ids: np.ndarray) -> np.ndarray:
    if len(frame) == 0:  # an empty categorical column has no value type to look ids up in
        return np.empty(0, dtype=np.int64)
    codes = codes_in(frame[column], ids)
    unknown = codes < 0
    if unknown.any():
        examples = list(pd.unique(frame[column][unknown]))[:_EXAMPLES]
        problem = f"{int(unknown.sum())} row(s) whose {column} is not in cells"
        raise AnchoredInputError(f"{table}: {problem}; e.g. {examples!r}")
    return codes


class AnchoredResamples:
    """Each resample's anchored values, filled chunk by chunk from the task counts.

    cells: one row per (model, task): model_id, task_id, kind, score, and optionally is_ranked
    (the models of kind 'model' it marks are ranked, without it all of them: the bootstrap's
    design.ranked_and_reference; the tasks, sorted, are the bootstrap's).
    dimension_cells: one row per (model, task, dimension) the task has: model_id, task_id,
    dimension, score. pairs: PAIR_COLUMNS, one row per calibrated pair with a majority label:
    the criterion's weight, the weight of the task's criteria (task_weight) and of its
    criteria in the pair's dimension (dimension_weight).
    """

    def __init__(
        self,
        cells: pd.DataFrame,
        dimension_cells: pd.DataFrame,
        pairs: pd.DataFrame,
        *,
        samples: int,
        min_pairs: int,
        by_dimension: bool,
    ) -> None:
        for name, value in (("samples", samples), ("min_pairs", min_pairs)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise AnchoredInputError(f"{name} must be a positive integer, got {value!r}")
        _require(cells, "cells", CELL_COLUMNS)
        _require(dimension_cells, "dimension_cells", DIMENSION_COLUMNS)
        _require(pairs, "calibration pairs", PAIR_COLUMNS)
        t, self.tasks = factorize_sorted(cells["task_id"])
        mo, self.models = factorize_sorted(cells["model_id"])
        dimensions = sorted(str(d) for d in pd.unique(dimension_cells["dimension"]))
        self.dimensions = np.array(dimensions, dtype=object)
        n, m, k = len(self.tasks), len(self.models), len(dimensions)
        if len(cells) != n * m:
            raise AnchoredInputError(f"cells: {len(cells)} rows, need one per (model_id, task_id): {n * m}")
        # the models the leaderboard ranks and its clinician reference, as the bootstrap's design has them
        self.ranked, self.reference = ranked_and_reference(*cell_roles(cells), mo, self.models)
        # the groups: each model's 'all' (group = model), then, by_dimension, each model's
        # dimensions (group = m + model * k + dimension)
        self.by_dimension = by_dimension
        g = m + (m * k if by_dimension else 0)
        self.n_groups = g
        pt = _codes(pairs, "calibration pairs", "task_id", self.tasks)
        pm = _codes(pairs, "calibration pairs", "model_id", self.models)
        pd_ = _codes(pairs, "calibration pairs", "dimension", self.dimensions)
        weight = pairs["weight"].to_numpy(dtype=np.float64)
        share = weight / pairs["task_weight"].to_numpy(dtype=np.float64)
        delta = pairs["is_gold_met"].to_numpy(dtype=np.float64) - pairs["is_judge_met"].to_numpy(dtype=np.float64)

        # dense columns: the groups' cell scores, the "task has it" masks ('all', then each
        # dimension), and the 'all' groups' D and N (most tasks hold a calibrated pair of a model)
        has_columns = 1 + (k if by_dimension else 0)
        dense = np.zeros((n, g + has_columns + 2 * m))
        dense[t, mo] = cells["score"].to_numpy(dtype=np.float64)
        dense[:, g] = 1.0
        correction, mass = g + has_columns, g + has_columns + m
        np.add.at(dense, (pt, correction + pm), share * delta)
        np.add.at(dense, (pt, mass + pm), share)
        self._has = np.full(g, g)
        self._correction, self._mass = np.arange(correction, correction + m), np.arange(mass, mass + m)
        self.n_pairs = np.bincount(pm, minlength=m)
        self._sparse = None
        if by_dimension:
            # each model's dimension scores, and their D and N as a sparse block (a task holds
            # few calibrated pairs of a model in one dimension)
            dt = _codes(dimension_cells, "dimension_cells", "task_id", self.tasks)
            dm = _codes(dimension_cells, "dimension_cells", "model_id", self.models)
            dd = codes_in(dimension_cells["dimension"], self.dimensions)
            dense[dt, m + dm * k + dd] = dimension_cells["score"].to_numpy(dtype=np.float64)
            dense[dt, g + 1 + dd] = 1.0
            self._has[m:] = g + 1 + np.tile(np.arange(k), m)
            group = pm * k + pd_
            dimension_share = weight / pairs["dimension_weight"].to_numpy(dtype=np.float64)
            self._sparse = sparse.csr_array(
                (
                    np.concatenate([dimension_share * delta, dimension_share]),
                    (np.tile(pt, 2), np.concatenate([group, m * k + group])),
                ),
                shape=(n, 2 * m * k),
            )
            self.n_pairs = np.concatenate([self.n_pairs, np.bincount(group, minlength=m * k)])
        self._dense = dense
        self.eligible = self.n_pairs >= min_pairs

        self.point = self._values(np.ones((1, n)))[0]
        self._draws = np.empty((samples, g))
        self._done = 0

    def group(self, index: int) -> tuple[int, str | None]:
        """(model, dimension) of a group: dimension None for a model's 'all'."""
        m, k = len(self.models), len(self.dimensions)
        if index < m:
            return index, None
        model, dimension = divmod(index - m, k)
        return model, str(self.dimensions[dimension])

    def _values(self, counts: np.ndarray) -> np.ndarray:
        """Resamples x groups: the anchored values, NaN for a group without enough pairs."""
        sums = counts @ self._dense
        g = self.n_groups
        correction, mass = sums[:, self._correction], sums[:, self._mass]
        if self._sparse is not None:
            dimension_sums = np.asarray(counts @ self._sparse)
            half = dimension_sums.shape[1] // 2
            correction = np.concatenate([correction, dimension_sums[:, :half]], axis=1)
            mass = np.concatenate([mass, dimension_sums[:, half:]], axis=1)
        _, anchored = anchored_values(sums[:, :g], sums[:, self._has], correction, mass)
        anchored[:, ~self.eligible] = np.nan
        return anchored

    def add(self, counts: np.ndarray, task_order: np.ndarray) -> None:
        """The anchored values of the next len(counts) resamples; task_order names counts' columns."""
        if not np.array_equal(task_order, self.tasks):
            raise AnchoredInputError(
                f"the resamples count {len(task_order)} tasks, the anchored scores have {len(self.tasks)} "
                "(or other task ids): both must resample every task of the release"
            )
        rows = max(1, BLOCK_VALUES // (self._dense.shape[1] + (0 if self._sparse is None else self._sparse.shape[1])))
        for lo in range(0, len(counts), rows):
            block = counts[lo : lo + rows]
            self._draws[self._done : self._done + len(block)] = self._values(block)
            self._done += len(block)

    def rows(self, alpha: float) -> pd.DataFrame:
        """OUTPUT_COLUMNS: 'anchored_score' per model and 'anchored_dimension_score' per model and
        dimension with enough pairs; 'anchored_best_model_score', 'anchored_median_model_score',
        'anchored_clinician_reference_score' and per dimension 'anchored_best_dimension_score',
        'anchored_median_dimension_score' (model_id null) over the ranked models that have one."""
        if not 0.0 < float(alpha) < 1.0:
            raise AnchoredInputError(f"alpha must be in (0, 1), got {alpha!r}")
        if self._done != self._draws.shape[0]:
            raise AnchoredInputError(f"{self._done} of {self._draws.shape[0]} resamples were added")
        m, k = len(self.models), len(self.dimensions)
        low, high = percentile_interval(self._draws, alpha)
        out: list[tuple[str, str | None, str | None, float, float, float]] = []
        for group in np.flatnonzero(self.eligible):
            model, dimension = self.group(int(group))
            statistic = "anchored_score" if dimension is None else "anchored_dimension_score"
            out.append((statistic, str(self.models[model]), dimension, self.point[group], low[group], high[group]))
        scopes = [(self.ranked, None)]
        if self.by_dimension:
            scopes += [(m + self.ranked * k + d, str(self.dimensions[d])) for d in range(k)]
        for groups, dimension in scopes:
            groups = groups[self.eligible[groups]]
            if len(groups) == 0:
                continue
            suffix = "model_score" if dimension is None else "dimension_score"
            for name, summary in (("best", np.max), ("median", np.median)):
                point = float(summary(self.point[groups]))
                draws = summary(self._draws[:, groups], axis=1)[:, None]
                (lo,), (hi,) = percentile_interval(draws, alpha)
                out.append((f"anchored_{name}_{suffix}", None, dimension, point, lo, hi))
        if self.reference is not None and self.eligible[self.reference]:
            group = self.reference
            statistic = "anchored_clinician_reference_score"
            out.append((statistic, None, None, self.point[group], low[group], high[group]))
        frame = pd.DataFrame(out, columns=list(OUTPUT_COLUMNS))
        numbers = ["estimate", "ci_low", "ci_high"]
        # a score lies in [0, 1]: the estimate and interval are cut to it
        frame[numbers] = frame[numbers].astype(np.float64).clip(0.0, 1.0)
        return frame
