-- Every model score lies inside its bootstrap interval.
select
    model_id,
    score,
    ci_low,
    ci_high
from {{ ref('model_scores') }}
where ci_low is null
    or ci_high is null
    or score < ci_low - 1e-9
    or score > ci_high + 1e-9
