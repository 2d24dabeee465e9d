"""The family-wise letters by simulation (scripts/letters_simulation.py, small and seeded):
models equal in truth are separated in at most about alpha of the releases, where each
pair's own interval separates some pair far more often; clearly different models still get
a letter each. And the simultaneous intervals on a case small enough to work out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from distressbench.stats.bootstrap.estimates import familywise_intervals, pair_intervals
from letters_simulation import equal_models_rates, pairs_and_letters, release_cells

ALPHA = 0.05


def test_equal_models_are_separated_in_at_most_about_alpha_of_the_releases() -> None:
    releases = 200
    rates = equal_models_rates(releases=releases, k=6, n_tasks=80, samples=300, alpha=ALPHA, seed=1)
    # A procedure whose true rate is alpha exceeds alpha + 2.33 binomial standard deviations
    # (0.086 at 200 releases) in about 1% of seeds; with 15 pairs the unadjusted intervals
    # separate some pair in a far larger share.
    slack = 2.33 * math.sqrt(ALPHA * (1 - ALPHA) / releases)
    print(f"family-wise {rates.familywise:.3f}, unadjusted {rates.unadjusted:.3f}")
    assert rates.familywise <= ALPHA + slack
    assert rates.unadjusted > 3 * rates.familywise
    assert rates.unadjusted > 0.25


def test_clearly_different_models_still_get_a_letter_each() -> None:
    shifts = np.array([0.0, -0.1, -0.2, -0.3, -0.4, -0.5])
    cells = release_cells(np.random.default_rng(5), 200, shifts)
    rows = pairs_and_letters(cells, samples=500, seed=5, alpha=ALPHA)
    letters = rows[rows["statistic"] == "letters"].set_index("model_id")["letters"].to_dict()
    assert letters == {"m0": "a", "m1": "b", "m2": "c", "m3": "d", "m4": "e", "m5": "f"}


def test_simultaneous_intervals_by_hand() -> None:
    # Three models over four resamples; point scores 0.5, 0.3, 0.1 (differences 0.2, 0.4, 0.2).
    scores = np.array(
        [
            [0.6, 0.3, 0.1],
            [0.4, 0.3, 0.1],
            [0.5, 0.4, 0.1],
            [0.5, 0.2, 0.1],
        ]
    )
    point = np.array([0.5, 0.3, 0.1])
    low, high = familywise_intervals(scores, point, alpha=0.5)
    # The pairs' resampled differences and their population standard deviations:
    # (0,1): 0.3 0.1 0.1 0.3 -> sd 0.1; (0,2): 0.5 0.3 0.4 0.4 -> sd sqrt(0.005);
    # (1,2): 0.2 0.2 0.3 0.1 -> sd sqrt(0.005).
    se = {(0, 1): 0.1, (0, 2): math.sqrt(0.005), (1, 2): math.sqrt(0.005)}
    # Each resample's largest |difference - point| / sd: resample 1: max(1, 0.1/sd, 0) = sqrt(2);
    # 2: max(1, sqrt(2), 0) = sqrt(2); 3: max(1, 0, sqrt(2)) = sqrt(2); 4: max(1, 0, sqrt(2)) = sqrt(2).
    critical = math.sqrt(2)  # the 0.5 quantile of four equal values
    difference = {(0, 1): 0.2, (0, 2): 0.4, (1, 2): 0.2}
    for (i, j), d in difference.items():
        assert low[i, j] == pytest.approx(d - critical * se[(i, j)], abs=1e-12)
        assert high[i, j] == pytest.approx(d + critical * se[(i, j)], abs=1e-12)
    assert np.isnan(low[1, 0]) and np.isnan(high[2, 2])
    assert low[0, 1] > 0  # 0.2 - sqrt(2) * 0.1: separated
    # the unadjusted intervals are no wider
    plain_low, plain_high = pair_intervals(scores, alpha=0.5)
    for i, j in difference:
        assert low[i, j] <= plain_low[i, j] and high[i, j] >= plain_high[i, j]


def test_a_constant_difference_is_separated_and_identical_models_are_not() -> None:
    base = np.random.default_rng(3).random((50, 1))
    scores = np.hstack([base + 0.1, base, base])  # model 0 is 0.1 above in every resample
    low, high = familywise_intervals(scores, scores.mean(axis=0), alpha=ALPHA)
    assert low[0, 1] == pytest.approx(0.1, abs=1e-9) and high[0, 1] == pytest.approx(0.1, abs=1e-9)
    assert low[1, 2] == pytest.approx(0.0, abs=1e-12) and high[1, 2] == pytest.approx(0.0, abs=1e-12)
