"""Every pair of ranked models in the bootstrap (run_bootstrap's 'pair_difference' and
'letters' rows) against an independent computation of each pair, and the compact letter
display's algorithm on small hand-computed cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from distressbench.stats.bootstrap.estimates import pair_intervals as bootstrap_pair_intervals
from distressbench.stats.bootstrap.letters import letter_name, letter_sets, letters_by_model
from distressbench.stats.bootstrap.run import run_bootstrap
from fixtures.bootstrap_inputs import random_inputs
from fixtures.independent_pairs import familywise_intervals, letter_problems, pair_intervals, separated_pairs

SEED, SAMPLES, ALPHA = 11, 300, 0.05


def _separated(k: int, pairs: list[tuple[int, int]]) -> np.ndarray:
    matrix = np.zeros((k, k), dtype=bool)
    for i, j in pairs:
        matrix[i, j] = matrix[j, i] = True
    return matrix


def test_every_pair_matches_the_independent_computation() -> None:
    cells, dimensions = random_inputs(60, 9, n_dimensions=2, seed=3)
    result = run_bootstrap(cells, dimensions, samples=SAMPLES, seed=SEED, alpha=ALPHA)
    expected = pair_intervals(cells, seed=SEED, samples=SAMPLES, alpha=ALPHA)
    pairs = result[result["statistic"] == "pair_difference"]
    got = {
        (row.model_id, row.other_model_id): (row.estimate, row.ci_low, row.ci_high)
        for row in pairs.itertuples(index=False)
    }
    assert len(got) == len(pairs) == 8 * 7 // 2
    assert set(got) == set(expected)
    for pair, values in expected.items():
        assert got[pair] == pytest.approx(values, abs=1e-9), pair
    adjusted = familywise_intervals(cells, seed=SEED, samples=SAMPLES, alpha=ALPHA)
    rows = result[result["statistic"] == "pair_difference_familywise"]
    got = {(r.model_id, r.other_model_id): (r.estimate, r.ci_low, r.ci_high) for r in rows.itertuples(index=False)}
    assert set(got) == set(adjusted)
    for pair, values in adjusted.items():
        assert got[pair] == pytest.approx(values, abs=1e-9), pair
        assert values[1] <= expected[pair][1] and values[2] >= expected[pair][2], pair  # wider than unadjusted
    separated = separated_pairs(adjusted)
    assert 0 < len(separated) < len(separated_pairs(expected))  # some pairs separate only unadjusted
    letters = result[result["statistic"] == "letters"].set_index("model_id")["letters"].to_dict()
    assert len(letters) == 8
    assert letter_problems(letters, separated) == []


@pytest.mark.parametrize(("samples", "alpha"), [(37, 0.05), (200, 0.1), (1, 0.05), (10, 0.5)])
def test_pair_intervals_are_numpys_linear_quantiles_of_each_difference(samples: int, alpha: float) -> None:
    scores = np.random.default_rng(samples).random((samples, 6))
    low, high = bootstrap_pair_intervals(scores, alpha)
    for i in range(6):
        for j in range(6):
            if i < j:
                expected = np.quantile(scores[:, i] - scores[:, j], [alpha / 2, 1 - alpha / 2], method="linear")
                assert (low[i, j], high[i, j]) == tuple(expected), (i, j)
            else:
                assert np.isnan(low[i, j]) and np.isnan(high[i, j])


def test_letters_are_named_by_score() -> None:
    cells, dimensions = random_inputs(60, 9, n_dimensions=2, seed=3)
    result = run_bootstrap(cells, dimensions, samples=SAMPLES, seed=SEED, alpha=ALPHA)
    in_order = result[result["statistic"] == "letters"]["letters"].tolist()  # rows in ranking order
    first_seen: list[str] = []
    for text in in_order:
        first_seen += [letter for letter in text if letter not in first_seen]
    assert first_seen == [letter_name(i) for i in range(len(first_seen))]
    assert in_order[0].startswith("a")


def test_a_chain_gets_a_ab_b() -> None:
    # A ~ B and B ~ C, but A and C differ clearly: one tie group by adjacent pairs, two letters
    assert letters_by_model(_separated(3, [(0, 2)])) == ["a", "ab", "b"]


def test_no_clear_difference_gives_one_letter_and_all_clear_gives_one_each() -> None:
    assert letters_by_model(_separated(4, [])) == ["a", "a", "a", "a"]
    every = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    assert letters_by_model(_separated(4, every)) == ["a", "b", "c", "d"]


def test_a_wide_model_shares_letters_with_models_that_differ_from_each_other() -> None:
    # by hand: 0, 1 and 3 differ from each other; 2 (a wide interval) differs from nobody.
    # The pairs 0-2, 1-2 and 2-3 each need a letter, which can hold no other model: {0,2},
    # {1,2}, {2,3}, named by their best model: a, b, abc, c
    assert letters_by_model(_separated(4, [(0, 1), (0, 3), (1, 3)])) == ["a", "b", "abc", "c"]


def test_sweep_takes_off_a_letter_the_others_already_cover() -> None:
    # by hand: 0-3, 0-4 and 1-4 differ. 0-1 and 0-2 need {0,1,2} (a); 2-4 and 3-4 need
    # {2,3,4} (c); 1-3 needs a letter with 1 and 3 but neither 0 nor 4 (b). Insert and absorb
    # give b = {1,2,3}; the sweep takes 2 off it (a pairs 2 with 1, c pairs 2 with 3).
    sets = letter_sets(_separated(5, [(0, 3), (0, 4), (1, 4)]))
    assert sets.astype(int).tolist() == [[1, 1, 1, 0, 0], [0, 1, 0, 1, 0], [0, 0, 1, 1, 1]]
    assert letters_by_model(_separated(5, [(0, 3), (0, 4), (1, 4)])) == ["a", "ab", "ac", "bc", "c"]


def test_letter_names_can_be_read_apart_beyond_52() -> None:
    assert [letter_name(i) for i in (0, 25, 26, 51, 52, 53, 104)] == ["a", "z", "A", "Z", "a1", "b1", "a2"]


def test_letters_stay_valid_on_random_relations() -> None:
    rng = np.random.default_rng(5)
    for k in (2, 5, 12, 30):
        for _ in range(20):
            upper = np.triu(rng.random((k, k)) < rng.uniform(0.1, 0.9), 1)
            matrix = upper | upper.T
            models = [f"m{i:02d}" for i in range(k)]
            letters = dict(zip(models, letters_by_model(matrix), strict=True))
            separated = {frozenset((models[i], models[j])) for i, j in zip(*np.nonzero(upper), strict=True)}
            assert letter_problems(letters, separated) == []


def test_the_independent_letter_check_catches_a_chained_group() -> None:
    # the old tie group: all three in one group although A and C differ clearly
    assert letter_problems({"A": "a", "B": "a", "C": "a"}, {frozenset(("A", "C"))}) == [
        "A and C differ clearly but share a letter"
    ]


def test_pairs_of_one_ranked_model_are_none() -> None:
    cells = pd.DataFrame(
        {
            "model_id": ["m", "ref"],
            "task_id": ["t", "t"],
            "kind": ["model", "clinician_reference"],
            "score": [0.5, 1.0],
            "turn_type": ["single", "single"],
            "is_recognized_with_routing": [False, False],
            "is_not_routed": [False, False],
        }
    )
    dimensions = pd.DataFrame({"model_id": [], "task_id": [], "dimension": [], "score": []})
    result = run_bootstrap(cells, dimensions, samples=20, seed=1, alpha=ALPHA)
    assert (result["statistic"] == "pair_difference").sum() == 0
    assert result.loc[result["statistic"] == "letters", "letters"].tolist() == ["a"]
