"""The bootstrap's third kind of model: one of kind 'model' that is not ranked (is_ranked false,
judged otherwise; int_models_judged decides). It gets the intervals of its own scores (the model
score, its dimension and subcategory scores) and nothing that compares it with the ranked
models, and every other row is exactly what the bootstrap gives without it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from distressbench.stats.bootstrap.checks import BootstrapInputError
from distressbench.stats.bootstrap.run import run_bootstrap
from fixtures.bootstrap_inputs import random_inputs

PARAMETERS = {"samples": 200, "seed": 7, "alpha": 0.05}


@pytest.fixture(scope="module")
def inputs() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Five ranked models and a reference; model-002 is the one shown unranked."""
    cells, dimension_cells = random_inputs(n_tasks=40, n_models=6, seed=3)
    return cells.assign(is_ranked=cells["kind"].eq("model") & cells["model_id"].ne("model-002")), dimension_cells


def test_an_unranked_model_gets_its_own_intervals_and_nothing_else(inputs: tuple[pd.DataFrame, ...]) -> None:
    cells, dimension_cells = inputs
    rows = run_bootstrap(cells, dimension_cells, **PARAMETERS)
    mine = rows[(rows["model_id"] == "model-002") | (rows["other_model_id"] == "model-002")]
    assert set(mine["statistic"]) == {"model_score", "dimension_score"}  # the fixture has no subcategories
    assert mine["other_model_id"].isna().all()
    ((low, estimate, high),) = mine.loc[
        mine["statistic"] == "model_score", ["ci_low", "estimate", "ci_high"]
    ].to_numpy()
    assert estimate == pytest.approx(cells.loc[cells["model_id"] == "model-002", "score"].mean(), abs=1e-12)
    assert low <= estimate <= high and low < high


def test_every_other_row_is_as_without_the_unranked_model(inputs: tuple[pd.DataFrame, ...]) -> None:
    cells, dimension_cells = inputs
    with_it = run_bootstrap(cells, dimension_cells, **PARAMETERS)
    with_it = with_it[with_it["model_id"] != "model-002"].reset_index(drop=True)
    keep = cells["model_id"] != "model-002"
    without = run_bootstrap(
        cells[keep].reset_index(drop=True),
        dimension_cells[dimension_cells["model_id"] != "model-002"].reset_index(drop=True),
        **PARAMETERS,
    )
    pd.testing.assert_frame_equal(with_it, without, check_exact=True)


def test_without_is_ranked_every_model_of_kind_model_is_ranked(inputs: tuple[pd.DataFrame, ...]) -> None:
    cells, dimension_cells = inputs
    rows = run_bootstrap(cells.drop(columns="is_ranked"), dimension_cells, **PARAMETERS)
    ranked = sorted(rows.loc[rows["statistic"] == "rank", "model_id"])
    assert ranked == [f"model-{j:03d}" for j in range(5)]


def test_a_model_both_ranked_and_not_is_refused_by_name(inputs: tuple[pd.DataFrame, ...]) -> None:
    cells, dimension_cells = inputs
    first = np.flatnonzero(cells["model_id"].eq("model-001").to_numpy())[0]
    mixed = cells.assign(is_ranked=cells["is_ranked"].to_numpy() & (np.arange(len(cells)) != first))
    with pytest.raises(BootstrapInputError, match=r"cells: 1 model_id\(s\) both ranked and not; e.g. 'model-001'"):
        run_bootstrap(mixed, dimension_cells, **PARAMETERS)
