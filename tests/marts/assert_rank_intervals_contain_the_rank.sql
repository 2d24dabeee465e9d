-- The bootstrap rank interval of every ranked model contains its rank on the full release.
-- A warning, not an error: near-tied models can legitimately miss (see the headline test).
{{ config(severity='warn') }}
select
    model_id,
    rank,
    rank_ci_low,
    rank_ci_high
from {{ ref('model_rank_stats') }}
where rank < rank_ci_low or rank > rank_ci_high
