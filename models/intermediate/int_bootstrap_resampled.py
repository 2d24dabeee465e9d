"""Bootstrap intervals for every model score and headline metric (issue: resample tasks).

A thin shell around distressbench.bootstrap.run_bootstrap, which holds the method and its
tests. B, the seed and alpha come from the vars bootstrap_samples, bootstrap_seed and
bootstrap_alpha (see dbt_project.yml). The marts on top carry the enforced contracts.
"""

import pyarrow as pa

OUTPUT_SCHEMA = pa.schema(
    [
        ("statistic", pa.string()),
        ("model_id", pa.string()),
        ("other_model_id", pa.string()),
        ("estimate", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
    ]
)


def model(dbt, session):
    from distressbench.bootstrap import run_bootstrap

    cells = dbt.ref("int_cells_scored").set_alias("cells")
    triaged = dbt.ref("int_cells_triaged").set_alias("triaged")
    # Through Arrow, not .df(): at 100x (12.6 M dimension rows) .df() peaks at ~4.6 GiB and
    # takes ~12 s, Arrow then pandas at ~1.3 GiB and ~2 s, with the same dtypes.
    cell_frame = cells.join(triaged, "cells.response_id = triaged.response_id").select(
        "cells.model_id, cells.task_id, cells.kind, cells.score, cells.turn_type, "
        "triaged.is_counted as is_recognized_with_routing, "
        "triaged.is_recognized_not_routed as is_not_routed"
    ).to_arrow_table().to_pandas()
    dimension_frame = dbt.ref("int_cell_dimensions_scored").select(
        "model_id, task_id, dimension, score"
    ).to_arrow_table().to_pandas()

    estimates = run_bootstrap(
        cell_frame,
        dimension_frame,
        samples=int(dbt.config.get("bootstrap_samples")),
        seed=int(dbt.config.get("bootstrap_seed")),
        alpha=float(dbt.config.get("bootstrap_alpha")),
    )
    return pa.Table.from_pandas(estimates[OUTPUT_SCHEMA.names], schema=OUTPUT_SCHEMA, preserve_index=False)
