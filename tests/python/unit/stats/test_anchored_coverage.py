"""The anchored intervals' coverage by simulation (scripts/anchored_coverage.py), small and
seeded: the synthetic generator knows every pair's clinician truth, so each model's true
clinician score is known and the intervals can be checked against it."""

from __future__ import annotations

import math

from anchored_coverage import simulate

LEVEL = 0.95


def test_anchored_intervals_cover_the_true_clinician_score() -> None:
    result = simulate(releases=60, n_tasks=120, n_models=3, samples=400, seed=20261101, truth_tasks=3000)
    # within three binomial standard errors of 95% over the releases x replies intervals
    tolerance = 3 * math.sqrt(LEVEL * (1 - LEVEL) / result.intervals)
    assert abs(result.anchored - LEVEL) <= tolerance, result
    # the lenient judge's scores sit above the clinicians': its intervals mostly miss
    assert result.judge_bias > 0.02, result
    assert result.judge < LEVEL - 0.5, result
    assert abs(result.anchored_bias) < 0.01, result
