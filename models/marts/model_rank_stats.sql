{#- Per ranked model (model_scores.is_ranked): its rank, the median and the interval of its rank over the bootstrap
    resamples, its rank upper bound (model_scores: 1 + the models clearly better), and the
    probability that it ranks first. -#}
with

model_scores as (
    select * from {{ ref('model_scores') }}
),

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

ranks as (
    select
        model_id,
        estimate as median_rank,
        ci_low as rank_ci_low,
        ci_high as rank_ci_high
    from bootstrap
    where statistic = 'rank'
),

first_place as (
    select
        model_id,
        estimate as p_rank_1
    from bootstrap
    where statistic = 'p_rank_1'
),

final as (
    select
        model_scores.release_id,
        model_scores.model_id,
        model_scores.rank,
        ranks.median_rank,
        ranks.rank_ci_low,
        ranks.rank_ci_high,
        model_scores.rank_upper_bound,
        first_place.p_rank_1
    from model_scores
    inner join ranks
        on model_scores.model_id = ranks.model_id
    inner join first_place
        on model_scores.model_id = first_place.model_id
    where model_scores.is_ranked
)

select * from final
