-- Every headline metric has an interval, and the interval contains the value.
select
    metric,
    value,
    ci_low,
    ci_high,
from {{ ref('headline_metrics') }}
where value is not null
    and (
        ci_low is null
        or ci_high is null
        or value < ci_low - 1e-12
        or value > ci_high + 1e-12
    )
