-- The bootstrap's pairs (model_pair_differences) are every pair of ranked models once, the
-- higher one in the one ranking order (model_scores.ranking_position) first; the letters and
-- the rank upper bounds read them in that order.
with

ranking as (
    select
        model_id,
        ranking_position
    from {{ ref('model_scores') }}
    where ranking_position is not null
),

expected as (
    select
        higher.model_id,
        lower.model_id as other_model_id
    from ranking as higher
    inner join ranking as lower
        on higher.ranking_position < lower.ranking_position
),

pairs as (
    select * from {{ ref('model_pair_differences') }}
),

final as (
    select
        coalesce(expected.model_id, pairs.model_id) as model_id,
        coalesce(expected.other_model_id, pairs.other_model_id) as other_model_id,
        expected.model_id is not null as is_expected,
        pairs.model_id is not null as is_in_bootstrap
    from expected
    full outer join pairs
        on
            expected.model_id = pairs.model_id
            and expected.other_model_id = pairs.other_model_id
    where expected.model_id is null or pairs.model_id is null
)

select * from final
