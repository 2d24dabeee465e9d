"""Bootstrap intervals for every model score and headline metric, and for the judge
calibration (issues: resample tasks; judge reliability), from one draw of the task counts.

A thin shell around distressbench.bootstrap.run_bootstrap and
distressbench.calibration_bootstrap.CalibrationResamples, which hold the methods and their
tests: the leaderboard bootstrap draws each chunk of resample counts and hands it to the
calibration's resamples too, so resample b reweights the same tasks in both (and the counts,
the costliest step, are drawn once). The calibration's rows are statistic
'calibration_<agreement|kappa|f1>' per dimension (and 'all'), with intervals only;
int_calibration_resampled lays them out per dimension. B, the seed and alpha come from the
vars bootstrap_samples, bootstrap_seed and bootstrap_alpha (see dbt_project.yml). The marts
on top carry the enforced contracts.
"""

import pyarrow as pa

OUTPUT_SCHEMA = pa.schema(
    [
        ("statistic", pa.string()),
        ("model_id", pa.string()),
        ("other_model_id", pa.string()),
        ("dimension", pa.string()),
        ("estimate", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
    ]
)


def model(dbt, session):
    from distressbench.build.process_memory import return_freed_memory

    rows = resampled_rows(dbt)
    # the frames resampled_rows read are freed: their memory goes back before dbt's next models
    return_freed_memory()
    return pa.Table.from_pandas(rows[OUTPUT_SCHEMA.names], schema=OUTPUT_SCHEMA, preserve_index=False)


def resampled_rows(dbt):
    import pandas as pd

    from distressbench.stats.bootstrap import read_inputs, run_bootstrap
    from distressbench.stats.calibration import STATISTICS, CalibrationResamples

    cell_frame, dimension_frame = read_inputs(
        dbt.ref("int_cells_scored"), dbt.ref("int_cells_triaged"), dbt.ref("int_cell_dimensions_scored")
    )
    tasks = dbt.ref("stg_release__tasks").select("task_id").to_arrow_table().to_pandas()
    # the calibrated pairs that marts.judge_calibration counts: those with a majority label
    pairs = (
        dbt.ref("int_calibration_pairs_matched")
        .filter("not is_tie")
        .select("task_id, dimension, is_judge_met, is_gold_met")
        .to_arrow_table()
        .to_pandas()
    )

    samples = int(dbt.config.get("bootstrap_samples"))
    alpha = float(dbt.config.get("bootstrap_alpha"))
    calibration = CalibrationResamples(tasks["task_id"], pairs, samples=samples)
    estimates = run_bootstrap(
        cell_frame,
        dimension_frame,
        samples=samples,
        seed=int(dbt.config.get("bootstrap_seed")),
        alpha=alpha,
        on_counts=calibration.add,
    )
    intervals = calibration.intervals(alpha)
    calibration_rows = pd.concat(
        [
            pd.DataFrame(
                {
                    "statistic": f"calibration_{name}",
                    "dimension": intervals["dimension"],
                    "ci_low": intervals[f"{name}_ci_low"],
                    "ci_high": intervals[f"{name}_ci_high"],
                }
            )
            for name in STATISTICS
        ]
    )
    return pd.concat([estimates, calibration_rows], ignore_index=True)
