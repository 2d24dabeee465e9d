-- The bootstrap's adjacent pairs (model_pair_differences: each ranked model and the next one
-- down) follow the one ranking order, model_scores.ranking_position; model_scores walks those
-- pairs to form the tie groups, so the two orders must agree.
with

ranking as (
    select
        model_id,
        lead(model_id) over (order by ranking_position) as next_model_id
    from {{ ref('model_scores') }}
    where ranking_position is not null
),

expected as (
    select * from ranking
    where next_model_id is not null
),

pairs as (
    select * from {{ ref('model_pair_differences') }}
),

final as (
    select
        coalesce(expected.model_id, pairs.model_id) as model_id,
        expected.next_model_id as expected_next_model_id,
        pairs.next_model_id as bootstrap_next_model_id
    from expected
    full outer join pairs
        on expected.model_id = pairs.model_id
    where
        expected.model_id is null
        or pairs.model_id is null
        or expected.next_model_id != pairs.next_model_id
)

select * from final
