"""The bootstrap's inputs read from DuckDB: the cells and their dimension rows, through Arrow
with ids as categoricals, the dimension rows given their cell's ids by response_key."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from distressbench.stats.bootstrap.checks import BootstrapInputError, fail

if TYPE_CHECKING:
    from duckdb import DuckDBPyRelation


def read_inputs(
    cells: DuckDBPyRelation, triaged: DuckDBPyRelation, dimensions: DuckDBPyRelation
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(cells, dimension_cells) for run_bootstrap, from DuckDB relations of the dbt models
    int_cells_scored, int_cells_triaged and int_cell_dimensions_scored (dbt.ref's in the Python
    model, where dbt finds its dependencies; tables of a built warehouse in the benchmark).

    Through Arrow, with string columns as categoricals, so each distinct id is held once. The
    dimension rows come by response_key alone and take their cell's model_id and task_id
    here, rather than as millions of id strings from DuckDB.
    """
    cell_frame = (
        cells.set_alias("cells")
        .join(triaged.set_alias("triaged"), "cells.response_key = triaged.response_key")
        .select(
            "cells.response_key, cells.model_id, cells.task_id, cells.kind, cells.is_ranked, cells.score, "
            "cells.turn_type, cells.subcategory, "
            "triaged.is_counted as is_recognized_with_routing, triaged.is_recognized_not_routed as is_not_routed"
        )
        .to_arrow_table()
        .to_pandas(strings_to_categorical=True)
    )
    keyed = dimensions.select("response_key, dimension, score").to_arrow_table().to_pandas(strings_to_categorical=True)
    return cell_frame, with_cell_ids(cell_frame, keyed)


def with_cell_ids(cells: pd.DataFrame, keyed: pd.DataFrame) -> pd.DataFrame:
    """keyed's rows with the model_id and task_id (categoricals) of the cell in `cells` that
    has their response_key, the replies' dense surrogate key (1 to the number of replies, so
    a look-up array of that size finds each row's cell)."""
    keys = cells["response_key"].to_numpy(dtype=np.int64)
    wanted = keyed["response_key"].to_numpy(dtype=np.int64)
    if min(keys.min(initial=0), wanted.min(initial=0)) < 0:
        raise BootstrapInputError("cells, dimension_cells: a negative response_key (the keys are 1 and up)")
    row_of_key = np.full(max(keys.max(initial=0), wanted.max(initial=0)) + 1, -1)
    row_of_key[keys] = np.arange(len(keys))
    rows = row_of_key[wanted]
    missing = np.flatnonzero(rows < 0)
    if len(missing):
        problem = "row(s) whose response_key is not in cells"
        raise fail("dimension_cells", problem, len(missing), wanted[missing].tolist())
    frame = keyed.drop(columns="response_key")
    for position, column in enumerate(("model_id", "task_id")):
        ids = cells[column].cat
        codes = np.asarray(ids.codes)[rows]
        frame.insert(position, column, pd.Categorical.from_codes(codes, categories=ids.categories))
    return frame
