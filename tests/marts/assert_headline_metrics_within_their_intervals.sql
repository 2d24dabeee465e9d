-- Every headline metric has an interval, and the interval contains the value (judge_alpha,
-- the judge's self-consistency, is reported without one).
-- A warning, not an error: a percentile interval of a maximum or a median is not bound to
-- contain the full-sample value (near-tied leaders bias the resampled maximum upwards), so
-- a miss on real data is worth a look but must not block a release.
{{ config(severity='warn') }}
select
    metric,
    value,
    ci_low,
    ci_high,
from {{ ref('headline_metrics') }}
where value is not null
    and metric <> 'judge_alpha'
    and (
        ci_low is null
        or ci_high is null
        or value < ci_low - 1e-9
        or value > ci_high + 1e-9
    )
