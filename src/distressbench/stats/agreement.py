"""Task-bootstrap percentile interval for a judge's self-consistency (each judge's alpha; the
primary judge's is the headline judge_alpha).

Method
- Resample b's task counts are the leaderboard bootstrap's (distressbench.stats.bootstrap):
  the build's run_bootstrap hands each chunk of counts it draws (over ALL tasks of the
  release sorted by task_id, code-point order) to AlphaResamples.add, as it does to the
  calibration's resamples, so every headline interval reweights the same tasks.
- Units are those of one judge's 'all' row of marts.judge_agreement_by_judge: the (reply,
  criterion) pairs of non-empty replies with at least two labels of that judge (the build
  makes one AlphaResamples per judge; the primary judge's is the headline judge_alpha). A unit with n
  labels of which m are met adds n labels, m met labels and m(n - m) / (n - 1) to the
  disagreement sum D. Krippendorff's alpha (nominal) is
  1 - (N - 1) * D / (N0 * N1), with N labels, N1 met and N0 = N - N1; undefined (NaN) when
  N0 * N1 = 0. A task's units count as often as the task is drawn.
- Per task, the design matrix holds N, N1 and, for each distinct n, the integer sum of
  m(n - m) over the task's units with n labels; D is the sum over n of those columns divided
  by n - 1. So ``counts @ design`` adds integers only and is exact in float64, whatever the
  chunk shape.
- Interval: ``np.nanquantile(..., [alpha/2, 1 - alpha/2], method="linear")`` over the
  resamples where alpha is defined; NaN when it is defined in none. The point estimate is
  the same formula with every task drawn once (it equals the judge's 'all' row of
  marts.judge_agreement_by_judge).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from distressbench.errors import DistressbenchError
from distressbench.stats.coding import codes_in

UNIT_COLUMNS = ("task_id", "n_labels", "n_met", "n_units")
QUANTILE_METHOD = "linear"
_EXAMPLES = 3


class AgreementInputError(DistressbenchError, ValueError):
    """The tasks or unit kinds handed to AlphaResamples break an assumption."""


def _validate(task_ids: pd.Series, units: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(sorted task ids, each unit row's task position), or an AgreementInputError."""
    if task_ids.isna().any() or not all(isinstance(t, str) for t in task_ids):
        bad = [t for t in task_ids if not isinstance(t, str)][:_EXAMPLES]
        raise AgreementInputError(f"tasks: task_id must be non-null strings; e.g. {bad!r}")
    tasks = np.array(sorted(task_ids), dtype=object)
    if len(tasks) == 0:
        raise AgreementInputError("tasks: 0 rows; the bootstrap resamples tasks")
    duplicated = tasks[1:][tasks[1:] == tasks[:-1]]
    if len(duplicated):
        examples = list(duplicated[:_EXAMPLES])
        raise AgreementInputError(f"tasks: {len(duplicated)} duplicate task_id(s); e.g. {examples!r}")
    missing = [c for c in UNIT_COLUMNS if c not in units.columns]
    if missing:
        raise AgreementInputError(f"judge units: missing column(s) {', '.join(missing)}")
    for column in UNIT_COLUMNS:
        nulls = units[column].isna()
        if nulls.any():
            examples = units.loc[nulls, "task_id"].head(_EXAMPLES).tolist()
            raise AgreementInputError(
                f"judge units: {int(nulls.sum())} null value(s) in column {column!r}; e.g. task_id {examples!r}"
            )
    n_labels, n_met, n_units = (units[c].to_numpy(dtype=np.int64) for c in UNIT_COLUMNS[1:])
    bad = (n_labels < 2) | (n_met < 0) | (n_met > n_labels) | (n_units < 1)
    if bad.any():
        examples = units.loc[bad, list(UNIT_COLUMNS)].head(_EXAMPLES).to_records(index=False).tolist()
        raise AgreementInputError(
            f"judge units: {int(bad.sum())} row(s) with n_labels < 2, n_met outside [0, n_labels] or n_units < 1; "
            f"e.g. {examples!r}"
        )
    position = codes_in(units["task_id"].astype(str), tasks)
    unknown = position < 0
    if unknown.any():
        examples = list(pd.unique(units["task_id"][unknown]))[:_EXAMPLES]
        raise AgreementInputError(
            f"judge units: {int(unknown.sum())} row(s) whose task_id is not a task; e.g. {examples!r}"
        )
    return tasks, position


def _alpha(sums: np.ndarray, divisors: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha from (..., 2 + len(divisors)) sums: N, N1, then sum m(n-m) per n."""
    total, met = sums[..., 0], sums[..., 1]
    disagreement = (sums[..., 2:] / divisors).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        denominator = (total - met) * met
        return np.where(denominator > 0, 1 - (total - 1) * disagreement / denominator, np.nan)


class AlphaResamples:
    """judge_alpha in each resample, filled chunk by chunk from the task counts.

    task_ids: every task of the release. units: one row per (task_id, n_labels, n_met) kind
    of unit with n_units units of that kind (int_judge_alpha_task_units). `add` takes the next
    chunk of resample counts (rows: resamples in order; columns: the tasks by task_id, named
    by `task_order`), as CalibrationResamples.add does.
    """

    def __init__(self, task_ids: pd.Series, units: pd.DataFrame, *, samples: int) -> None:
        if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
            raise AgreementInputError(f"samples must be a positive integer, got {samples!r}")
        self.tasks, position = _validate(task_ids, units)
        n_labels, n_met, n_units = (units[c].to_numpy(dtype=np.int64) for c in UNIT_COLUMNS[1:])
        sizes, size_of = np.unique(n_labels, return_inverse=True)
        self._divisors = (sizes - 1).astype(np.float64)
        self._design = np.zeros((len(self.tasks), 2 + len(sizes)))
        np.add.at(self._design, (position, 0), n_units * n_labels)
        np.add.at(self._design, (position, 1), n_units * n_met)
        np.add.at(self._design, (position, 2 + size_of), n_units * n_met * (n_labels - n_met))
        self._draws = np.empty(samples)
        self._done = 0

    def estimate(self) -> float:
        """alpha with every task drawn once."""
        return float(_alpha(self._design.sum(axis=0), self._divisors))

    def add(self, counts: np.ndarray, task_order: np.ndarray) -> None:
        """alpha in the next len(counts) resamples; task_order names counts' columns."""
        if not np.array_equal(task_order, self.tasks):
            raise AgreementInputError(
                f"the resamples count {len(task_order)} tasks, the judge units {len(self.tasks)} "
                "(or other task ids): both must resample every task of the release"
            )
        if self._done + len(counts) > len(self._draws):
            raise AgreementInputError(f"{self._done + len(counts)} resamples added, {len(self._draws)} expected")
        self._draws[self._done : self._done + len(counts)] = _alpha(counts @ self._design, self._divisors)
        self._done += len(counts)

    def interval(self, alpha: float) -> tuple[float, float]:
        """(ci_low, ci_high) of judge_alpha at level 1 - alpha."""
        if not 0.0 < float(alpha) < 1.0:
            raise AgreementInputError(f"alpha must be in (0, 1), got {alpha!r}")
        if self._done != len(self._draws):
            raise AgreementInputError(f"{self._done} of {len(self._draws)} resamples were added")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # undefined in every resample: NaN bounds
            low, high = np.nanquantile(self._draws, [alpha / 2, 1 - alpha / 2], method=QUANTILE_METHOD)
        return float(low), float(high)
