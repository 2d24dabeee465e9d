"""Reading the bootstrap's inputs (distressbench.stats.bootstrap.inputs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from distressbench.stats.bootstrap.checks import BootstrapInputError
from distressbench.stats.bootstrap.inputs import with_cell_ids
from fixtures.bootstrap_inputs import random_inputs, run_bootstrap


def test_dimension_rows_by_response_key_take_their_cells_ids() -> None:
    """The build reads the dimension rows by response_key and gives them their cell's ids
    (with_cell_ids): the same rows as by ids, in any order; a key without a cell is named."""
    cells, dims = random_inputs(40, 4, n_dimensions=3, seed=5)
    cells = cells.astype({"model_id": "category", "task_id": "category"})
    cells["response_key"] = np.random.default_rng(1).permutation(len(cells)) + 1
    key_of = dict(zip(zip(cells["model_id"], cells["task_id"], strict=True), cells["response_key"], strict=True))
    keyed = dims.sample(frac=1.0, random_state=2)
    keyed = pd.DataFrame(
        {
            "response_key": [key_of[pair] for pair in zip(keyed["model_id"], keyed["task_id"], strict=True)],
            "dimension": keyed["dimension"].to_numpy(),
            "score": keyed["score"].to_numpy(),
        }
    )
    found = with_cell_ids(cells, keyed)
    assert list(found.columns) == ["model_id", "task_id", "dimension", "score"]
    assert isinstance(found["model_id"].dtype, pd.CategoricalDtype)
    by_ids = found.astype({"model_id": str, "task_id": str}).sort_values(["model_id", "task_id", "dimension"])
    expected = dims.sort_values(["model_id", "task_id", "dimension"])
    assert by_ids.to_numpy().tolist() == expected[list(by_ids.columns)].to_numpy().tolist()
    reference = run_bootstrap(cells, dims, samples=129, seed=4)
    pd.testing.assert_frame_equal(reference, run_bootstrap(cells, found, samples=129, seed=4), check_exact=True)
    stray = keyed.copy()
    stray.loc[[0, 3], "response_key"] = [len(cells) + 7, 0]
    message = rf"2 row\(s\) whose response_key is not in cells; e.g. {len(cells) + 7}, 0"
    with pytest.raises(BootstrapInputError, match=message):
        with_cell_ids(cells, stray)
    stray.loc[0, "response_key"] = -1
    with pytest.raises(BootstrapInputError, match="a negative response_key"):
        with_cell_ids(cells, stray)
