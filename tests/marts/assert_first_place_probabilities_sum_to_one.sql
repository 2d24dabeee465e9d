-- P(rank 1) sums to 1 over the ranked models.
select sum(p_rank_1) as total
from {{ ref('model_rank_stats') }}
having abs(sum(p_rank_1) - 1) > 1e-9
