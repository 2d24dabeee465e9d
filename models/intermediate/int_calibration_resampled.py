"""Bootstrap intervals of the judge calibration: agreement, kappa and F1 per dimension and
'all' (issue: judge reliability). A thin shell around
distressbench.calibration_bootstrap.calibration_intervals, which holds the method and its
tests; resample b reweights the same tasks as resample b of int_bootstrap_resampled.
B, the seed and alpha come from the vars bootstrap_samples, bootstrap_seed and
bootstrap_alpha. marts.judge_calibration carries the point estimates and the contract.
"""

import pyarrow as pa

OUTPUT_SCHEMA = pa.schema(
    [
        ("dimension", pa.string()),
        ("agreement_ci_low", pa.float64()),
        ("agreement_ci_high", pa.float64()),
        ("kappa_ci_low", pa.float64()),
        ("kappa_ci_high", pa.float64()),
        ("f1_ci_low", pa.float64()),
        ("f1_ci_high", pa.float64()),
    ]
)


def model(dbt, session):
    from distressbench.calibration_bootstrap import calibration_intervals

    tasks = dbt.ref("stg_release__tasks").select("task_id").to_arrow_table().to_pandas()
    verdicts = dbt.ref("int_verdicts_voted").set_alias("verdicts")
    adjudicated = dbt.ref("int_calibration_labels_adjudicated").set_alias("adjudicated")
    # the pairs of marts.judge_calibration: a calibrated pair with a majority label, and the judge's verdict
    pairs = (
        adjudicated.join(
            verdicts,
            "adjudicated.response_id = verdicts.response_id and adjudicated.criterion_id = verdicts.criterion_id",
        )
        .filter("not adjudicated.is_tie")
        .select(
            "verdicts.task_id, verdicts.dimension, verdicts.is_met as is_judge_met, adjudicated.is_gold_met"
        )
        .to_arrow_table()
        .to_pandas()
    )
    intervals = calibration_intervals(
        tasks["task_id"],
        pairs,
        samples=int(dbt.config.get("bootstrap_samples")),
        seed=int(dbt.config.get("bootstrap_seed")),
        alpha=float(dbt.config.get("bootstrap_alpha")),
    )
    return pa.Table.from_pandas(intervals[OUTPUT_SCHEMA.names], schema=OUTPUT_SCHEMA, preserve_index=False)
