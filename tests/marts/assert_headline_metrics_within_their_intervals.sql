-- Every headline metric has an interval, and the interval contains the value; a metric the
-- registry reports without one (interval_source 'none') is exempt.
-- A warning, not an error: a percentile interval of a maximum or a median is not bound to
-- contain the full-sample value (near-tied leaders bias the resampled maximum upwards), so
-- a miss on real data is worth a look but must not block a release.
{{ config(severity='warn') }}
select
    headline_metrics.metric,
    headline_metrics.value,
    headline_metrics.ci_low,
    headline_metrics.ci_high
from {{ ref('headline_metrics') }} as headline_metrics
inner join {{ ref('headline_metric_registry') }} as registry
    on headline_metrics.metric = registry.metric
where
    headline_metrics.value is not null
    and registry.interval_source != 'none'
    and (
        headline_metrics.ci_low is null
        or headline_metrics.ci_high is null
        or headline_metrics.value < headline_metrics.ci_low - 1e-9
        or headline_metrics.value > headline_metrics.ci_high + 1e-9
    )
