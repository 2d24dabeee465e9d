-- Every defined calibration statistic has an interval, and the interval contains it.
-- A warning, as for the headline metrics: a percentile interval is not bound to contain
-- the full-sample value of a ratio on few pairs; a miss is worth a look, not a block.
{{ config(severity='warn') }}
select
    dimension,
    statistic,
    value,
    ci_low,
    ci_high
from (
    select
        dimension,
        'agreement' as statistic,
        agreement as value,
        agreement_ci_low as ci_low,
        agreement_ci_high as ci_high
    from {{ ref('judge_calibration') }}
    union all
    select
        dimension,
        'kappa' as statistic,
        kappa as value,
        kappa_ci_low as ci_low,
        kappa_ci_high as ci_high
    from {{ ref('judge_calibration') }}
    union all
    select
        dimension,
        'f1' as statistic,
        f1 as value,
        f1_ci_low as ci_low,
        f1_ci_high as ci_high
    from {{ ref('judge_calibration') }}
) as statistics
where
    value is not null
    and (ci_low is null or ci_high is null or value < ci_low - 1e-9 or value > ci_high + 1e-9)
