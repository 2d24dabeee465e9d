"""How often the letters separate models that are in truth equal: a seeded simulation.

Each simulated release has k ranked models that reply to the same n tasks. A task has a
difficulty p drawn from Beta(4, 2); a model's score on it is the share met of ten criteria,
each met with probability p + shift (the model's shift, 0 for equal models). Every release
goes through run_bootstrap, the warehouse's own bootstrap, and counts as separating when
any two of its models are separated: family-wise (the simultaneous intervals the letters and
rank bounds use) or unadjusted (each pair's own percentile interval). With equal models the
family-wise share should stay at or below alpha; the unadjusted one is reported beside it.

    .venv/bin/python scripts/letters_simulation.py                 # the full run (docs/definitions.md)
    .venv/bin/python scripts/letters_simulation.py --releases 100  # a quicker one
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
import pandas as pd

from distressbench.stats.bootstrap.run import run_bootstrap

CRITERIA = 10


@dataclass(frozen=True)
class Rates:
    releases: int
    familywise: float  # share of releases with at least one pair separated family-wise
    unadjusted: float  # the same with each pair's unadjusted interval


def release_cells(rng: np.random.Generator, n_tasks: int, shifts: np.ndarray) -> pd.DataFrame:
    """One simulated release's cells: one row per (model, task), models m0, m1, ..."""
    difficulty = rng.beta(4.0, 2.0, size=(n_tasks, 1))
    chance = np.clip(difficulty + shifts[np.newaxis, :], 0.0, 1.0)
    scores = rng.binomial(CRITERIA, chance) / CRITERIA
    k = len(shifts)
    return pd.DataFrame(
        {
            "model_id": np.tile([f"m{j}" for j in range(k)], n_tasks),
            "task_id": np.repeat([f"t{i:05d}" for i in range(n_tasks)], k),
            "kind": "model",
            "score": scores.ravel(),
            "turn_type": "single",
            "is_recognized_with_routing": False,
            "is_not_routed": False,
        }
    )


def pairs_and_letters(cells: pd.DataFrame, *, samples: int, seed: int, alpha: float) -> pd.DataFrame:
    """run_bootstrap's pair and letters rows for one release (no dimension rows)."""
    no_dimensions = pd.DataFrame({"model_id": [], "task_id": [], "dimension": [], "score": []}).astype(
        {"model_id": "str", "task_id": "str", "dimension": "str", "score": "float64"}
    )
    result = run_bootstrap(cells, no_dimensions, samples=samples, seed=seed, alpha=alpha)
    return result[result["statistic"].isin(["pair_difference", "pair_difference_familywise", "letters"])]


def separates(rows: pd.DataFrame, statistic: str) -> bool:
    """Whether any pair's interval of that statistic excludes 0."""
    pairs = rows[rows["statistic"] == statistic]
    return bool(((pairs["ci_low"] > 0) | (pairs["ci_high"] < 0)).any())


def equal_models_rates(
    *, releases: int, k: int, n_tasks: int, samples: int, alpha: float = 0.05, seed: int = 0
) -> Rates:
    """The share of `releases` simulated releases of k equal models in which any two are separated."""
    rng = np.random.default_rng(seed)
    familywise = unadjusted = 0
    for release in range(releases):
        rows = pairs_and_letters(release_cells(rng, n_tasks, np.zeros(k)), samples=samples, seed=release, alpha=alpha)
        familywise += separates(rows, "pair_difference_familywise")
        unadjusted += separates(rows, "pair_difference")
    return Rates(releases, familywise / releases, unadjusted / releases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--releases", type=int, default=1000)
    parser.add_argument("--models", type=int, default=6)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=20261207)
    args = parser.parse_args()
    sizes = {"releases": args.releases, "k": args.models, "n_tasks": args.tasks, "samples": args.samples}
    rates = equal_models_rates(**sizes, alpha=args.alpha, seed=args.seed)
    margin = 1.96 * np.sqrt(rates.familywise * (1 - rates.familywise) / rates.releases)
    print(
        f"{rates.releases} releases of {args.models} equal models, {args.tasks} tasks, B = {args.samples}, "
        f"alpha = {args.alpha}: any pair separated family-wise in {rates.familywise:.1%} (+/- {margin:.1%}), "
        f"unadjusted in {rates.unadjusted:.1%}"
    )


if __name__ == "__main__":
    main()
