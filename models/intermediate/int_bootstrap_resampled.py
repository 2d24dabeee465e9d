"""Bootstrap intervals for every model score and headline metric, and for the judge
calibration (issues: resample tasks; judge reliability), from one draw of the task counts.

A thin shell around distressbench.stats.bootstrap.run.run_bootstrap and
distressbench.stats.calibration.CalibrationResamples, which hold the methods and their
tests: the leaderboard bootstrap draws each chunk of resample counts and hands it to the
calibration's resamples too, so resample b reweights the same tasks in both (and the counts,
the costliest step, are drawn once). The calibration's rows are statistic
'calibration_<agreement|kappa|f1>' per dimension (and 'all'), with intervals only, model_id
null; int_calibration_resampled lays them out per dimension. The same per model (model_id
set; int_calibration_by_model_resampled), and 'judge_alpha' per judge (judge_id set; estimate
and interval, from distressbench.stats.agreement.AlphaResamples over that judge's units).
The leaderboard's rows include every pair of ranked models ('pair_difference', the
unadjusted paired interval, and 'pair_difference_familywise', the simultaneous one), each
model's compact letter display ('letters', in column letters, from the family-wise pairs),
every model's score per dimension ('dimension_score', dimension set) and per subcategory
('subcategory_score', subcategory set; model_id null for the pooled ranked models). The
scores anchored to the clinicians ('anchored_*', distressbench.stats.anchored.AnchoredResamples
over int_anchored_pairs, groups with at least var anchored_min_pairs pairs; per dimension only
with var anchored_by_dimension) reweight the same tasks too. B, the seed and alpha come
from the vars bootstrap_samples, bootstrap_seed and bootstrap_alpha (see dbt_project.yml).
The marts on top carry the enforced contracts.
"""

import pyarrow as pa

OUTPUT_SCHEMA = pa.schema(
    [
        ("statistic", pa.string()),
        ("model_id", pa.string()),
        ("other_model_id", pa.string()),
        ("dimension", pa.string()),
        ("subcategory", pa.string()),
        ("judge_id", pa.string()),
        ("estimate", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("letters", pa.string()),
    ]
)


def model(dbt, session):
    from distressbench.dbt.process_memory import return_freed_memory

    rows = resampled_rows(dbt)
    # the frames resampled_rows read are freed: their memory goes back before dbt's next models
    return_freed_memory()
    return pa.Table.from_pandas(rows[OUTPUT_SCHEMA.names], schema=OUTPUT_SCHEMA, preserve_index=False)


def resampled_rows(dbt):
    import numpy as np
    import pandas as pd

    from distressbench.stats.agreement import AlphaResamples
    from distressbench.stats.anchored import AnchoredResamples
    from distressbench.stats.bootstrap.inputs import read_inputs
    from distressbench.stats.bootstrap.run import run_bootstrap
    from distressbench.stats.calibration import CalibrationResamples

    cell_frame, dimension_frame = read_inputs(
        dbt.ref("int_cells_scored"), dbt.ref("int_cells_triaged"), dbt.ref("int_cell_dimensions_scored")
    )
    tasks = dbt.ref("stg_release__tasks").select("task_id").to_arrow_table().to_pandas()
    # the calibrated pairs that marts.judge_calibration counts: those with a majority label
    pairs = (
        dbt.ref("int_calibration_pairs_matched")
        .filter("not is_tie")
        .select("task_id, dimension, model_id, is_judge_met, is_gold_met")
        .to_arrow_table()
        .to_pandas()
    )
    units = dbt.ref("int_judge_alpha_task_units").to_arrow_table().to_pandas()
    anchored_pairs = (
        dbt.ref("int_anchored_pairs")
        .select("model_id, task_id, dimension, weight, task_weight, dimension_weight, is_judge_met, is_gold_met")
        .to_arrow_table()
        .to_pandas(strings_to_categorical=True)
    )

    samples = int(dbt.config.get("bootstrap_samples"))
    alpha = float(dbt.config.get("bootstrap_alpha"))
    # the var as dbt renders it into the config: "True" or "False"
    by_dimension = str(dbt.config.get("anchored_by_dimension")) == "True"
    calibration = CalibrationResamples(tasks["task_id"], pairs, samples=samples)
    by_model = CalibrationResamples(tasks["task_id"], pairs, samples=samples, by="model_id")
    anchored = AnchoredResamples(
        cell_frame,
        dimension_frame,
        anchored_pairs,
        samples=samples,
        min_pairs=int(dbt.config.get("anchored_min_pairs")),
        by_dimension=by_dimension,
    )
    judge_alphas = {
        judge_id: AlphaResamples(tasks["task_id"], judge_units, samples=samples)
        for judge_id, judge_units in units.groupby("judge_id", sort=True)
    }

    def on_counts(counts: np.ndarray, task_order: np.ndarray) -> None:
        calibration.add(counts, task_order)
        by_model.add(counts, task_order)
        anchored.add(counts, task_order)
        for resamples in judge_alphas.values():
            resamples.add(counts, task_order)

    estimates = run_bootstrap(
        cell_frame,
        dimension_frame,
        samples=samples,
        seed=int(dbt.config.get("bootstrap_seed")),
        alpha=alpha,
        on_counts=on_counts,
    )
    intervals = {judge_id: resamples.interval(alpha) for judge_id, resamples in judge_alphas.items()}
    alpha_rows = pd.DataFrame(
        {
            "statistic": "judge_alpha",
            "judge_id": pd.Series(list(judge_alphas), dtype="str"),
            "estimate": [resamples.estimate() for resamples in judge_alphas.values()],
            "ci_low": [intervals[judge_id][0] for judge_id in judge_alphas],
            "ci_high": [intervals[judge_id][1] for judge_id in judge_alphas],
        }
    )
    overall, per_model = calibration.intervals(alpha), by_model.intervals(alpha)
    calibrated = [calibration_rows(overall), calibration_rows(per_model)]
    return pd.concat([estimates, alpha_rows, *calibrated, anchored.rows(alpha)], ignore_index=True)


def calibration_rows(intervals):
    """CalibrationResamples.intervals in long form: statistic 'calibration_<name>' per row."""
    import pandas as pd

    from distressbench.stats.calibration import STATISTICS

    return pd.concat(
        [
            pd.DataFrame(
                {
                    "statistic": f"calibration_{name}",
                    "model_id": intervals.get("model_id"),
                    "dimension": intervals["dimension"],
                    "ci_low": intervals[f"{name}_ci_low"],
                    "ci_high": intervals[f"{name}_ci_high"],
                }
            )
            for name in STATISTICS
        ]
    )
