"""From resampled column sums to estimates: each resample's statistics (model means, headline
metrics, pair differences), the ranks among ranked models, and the intervals over resamples."""

from __future__ import annotations

import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from distressbench.stats.bootstrap.design import Design

SCORE_QUANTILE_METHOD = "linear"
# Columns of resampled statistics whose quantiles are taken at a time (percentile_interval).
QUANTILE_COLUMNS = 64
# Counts regrouped by subcategory at a time (subcategory_statistics): small enough to stay in cache.
GROUP_BLOCK_VALUES = 2**20
RANK_QUANTILE_METHOD = "inverted_cdf"


def statistics(sums: np.ndarray, design: Design) -> np.ndarray:
    """Resamples x statistics: model means (model_ids order), then headline_names(), then
    every model's score on each dimension (dimension-major, model_ids order)."""
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
        per_model = []
        for _ in design.dimensions:
            block = sums[:, start : start + m + 1]
            start += m + 1
            scores = block[:, :m] / block[:, m:]
            ranked_scores = scores[:, design.ranked]
            out.extend([ranked_scores.max(axis=1), np.median(ranked_scores, axis=1)])
            per_model.append(scores)
    return np.column_stack(out + per_model)


def subcategory_statistics(counts: np.ndarray, design: Design) -> np.ndarray:
    """Resamples x (n_subcategories x (n_models + 1)): per subcategory (sorted), each model's
    mean cell score over the subcategory's drawn tasks (model_ids order), then the mean over
    every ranked model's cells (pooled). A few resamples at a time (GROUP_BLOCK_VALUES counts)
    the counts are copied with their columns grouped by subcategory; each subcategory's sums
    are then one product of its own contiguous block of counts with its score rows and a
    column of ones (the tasks drawn), so all of them together cost one more pass over the
    counts, not a dense column per subcategory and model. NaN in a resample that draws none
    of the subcategory's tasks."""
    m, n = design.n_models, design.n_tasks
    out = np.empty((len(counts), len(design.subcategories), m + 1))
    if not design.subcategories:
        return out.reshape(len(counts), 0)
    bounds = design.subcategory_bounds
    rows = max(1, GROUP_BLOCK_VALUES // n)
    grouped = np.empty((min(rows, len(counts)), n))
    # each product is one subcategory's small block: BLAS threads cost more than they save on it
    with threadpool_limits(limits=1, user_api="blas"):
        for lo in range(0, len(counts), rows):
            chunk = counts[lo : lo + rows]
            block = np.take(chunk, design.subcategory_tasks, axis=1, out=grouped[: len(chunk)])
            for s in range(len(design.subcategories)):
                part = slice(bounds[s], bounds[s + 1])
                sums = block[:, part] @ design.subcategory_scores[part]
                with np.errstate(divide="ignore", invalid="ignore"):
                    out[lo : lo + rows, s, :m] = sums[:, :m] * design.unscale[:m] / sums[:, m:]
    out[:, :, m] = out[:, :, design.ranked].mean(axis=2)
    return out.reshape(len(counts), -1)


def headline_names(design: Design) -> list[str]:
    names = ["best_model_score", "median_model_score"]
    if design.reference is not None:
        names.append("clinician_reference_score")
    names += ["recognized_not_routed_rate", "single_turn_score", "multi_turn_score", "multi_minus_single"]
    for dim in design.dimensions:
        names += [f"best_{dim}_score", f"median_{dim}_score"]
    return names


def rank_rows(scores: np.ndarray) -> np.ndarray:
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


def percentile_interval(draws: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Per column (alpha/2, 1 - alpha/2) quantiles, NaN resamples left out; QUANTILE_COLUMNS
    columns at a time, so that the quantiles' working copy stays small."""
    q = [alpha / 2, 1 - alpha / 2]
    bounds = np.empty((2, draws.shape[1]))
    for lo in range(0, draws.shape[1], QUANTILE_COLUMNS):
        part = slice(lo, lo + QUANTILE_COLUMNS)
        bounds[:, part] = np.quantile(draws[:, part], q, axis=0, method=SCORE_QUANTILE_METHOD)
    gaps = np.flatnonzero(np.isnan(draws).any(axis=0))
    if len(gaps):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN bounds
            bounds[:, gaps] = np.nanquantile(draws[:, gaps], q, axis=0, method=SCORE_QUANTILE_METHOD)
    return bounds[0], bounds[1]


def pair_intervals(scores: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(ci_low, ci_high), each k x k: the percentile interval of score(i) - score(j) over the
    resamples (rows of `scores`, resamples x k), for every pair i < j (the upper triangle; the
    rest is NaN), as percentile_interval gives it (scores have no NaN). One model at a time
    against every model after it, so that memory holds resamples x k differences, never all
    k(k-1)/2 columns at once; each difference lies along a contiguous row, partitioned in
    place at the two order statistics each bound needs."""
    k = scores.shape[1]
    low, high = np.full((k, k), np.nan), np.full((k, k), np.nan)
    by_model = np.ascontiguousarray(scores.T)
    for i in range(k - 1):
        low[i, i + 1 :], high[i, i + 1 :] = _row_quantiles(by_model[i] - by_model[i + 1 :], (alpha / 2, 1 - alpha / 2))
    return low, high


def familywise_intervals(scores: np.ndarray, point: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(low, high), each k x k: simultaneous (1 - alpha) intervals for score(i) - score(j), every
    pair i < j (the upper triangle; the rest is NaN), by the studentized max-statistic bootstrap.

    se_ij is the standard deviation over the resamples of score(i) - score(j), from the k x k
    covariance of the resampled scores (rows of `scores`, resamples x k); in each resample the
    statistic is the largest |(d*_ij - d_ij) / se_ij| over all pairs, d_ij = point(i) - point(j)
    (a pair with se_ij = 0 adds nothing); c is its (1 - alpha) quantile (np.quantile, "linear")
    and the interval d_ij -/+ c * se_ij. It excludes 0 for at least one pair in no more than
    about alpha of the releases in which all models are equal. The maximum is taken one model
    against every model after it at a time, so memory holds resamples x k values, never all
    k(k-1)/2 pairs."""
    k = scores.shape[1]
    low, high = np.full((k, k), np.nan), np.full((k, k), np.nan)
    if k < 2:
        return low, high
    covariance = np.atleast_2d(np.cov(scores, rowvar=False, bias=True))
    variance = np.diag(covariance)
    se = np.sqrt(np.maximum(variance[:, None] + variance[None, :] - 2 * covariance, 0.0))
    errors = np.ascontiguousarray((scores - point).T)  # k x resamples: d*_ij - d_ij = e_i - e_j
    largest = np.zeros(scores.shape[0])
    for i in range(k - 1):
        spread = se[i, i + 1 :]
        kept = np.flatnonzero(spread > 0)
        if len(kept):
            ratio = np.abs(errors[i] - errors[i + 1 + kept]) / spread[kept, None]
            np.maximum(largest, ratio.max(axis=0), out=largest)
    critical = float(np.quantile(largest, 1 - alpha, method=SCORE_QUANTILE_METHOD))
    upper = np.triu(np.ones((k, k), dtype=bool), 1)
    difference = point[:, None] - point[None, :]
    low[upper] = (difference - critical * se)[upper]
    high[upper] = (difference + critical * se)[upper]
    return low, high


def _row_quantiles(rows: np.ndarray, qs: tuple[float, ...]) -> list[np.ndarray]:
    """Per row, each q-quantile as np.quantile(..., method="linear") computes it (the
    Hyndman-Fan type 7 order statistics and numpy's interpolation); `rows` is partitioned."""
    n = rows.shape[1]
    places = [((n - 1) * q, int(np.floor((n - 1) * q))) for q in qs]
    rows.partition(sorted({i for _, lo in places for i in (lo, min(lo + 1, n - 1))}), axis=1)
    out = []
    for h, lo in places:
        a, b, t = rows[:, lo], rows[:, min(lo + 1, n - 1)], h - lo
        out.append(a + (b - a) * t if t < 0.5 else b - (b - a) * (1 - t))
    return out


def rank_interval(ranks: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column the median rank and the (alpha/2, 1 - alpha/2) rank quantiles: ranks that occurred."""
    middle, low, high = np.quantile(ranks, [0.5, alpha / 2, 1 - alpha / 2], axis=0, method=RANK_QUANTILE_METHOD)
    return middle, low, high
