{#- Paper table T2: the leaderboard, models in the one ranking order, the models shown unranked
    (judged otherwise) and the clinician reference after them; the floor mark after the name of
    a model on whose replies the judge misses its calibration floor. -#}
with

model_scores as (
    select * from {{ ref('model_scores') }}
),

model_rank_stats as (
    select * from {{ ref('model_rank_stats') }}
),

model_order as (
    select * from {{ ref('rpt_model_order') }}
),

final as (
    select
        model_scores.release_id,
        model_order.row_group,
        model_scores.model_id,
        model_scores.display_name
        || case
            when model_scores.is_below_judge_floor then {{ string_literal(' ' ~ var('calibration_floor_mark')) }}
            else ''
        end as label,
        model_scores.provider,
        model_scores.kind,
        model_scores.n_tasks,
        model_scores.rank,
        model_scores.letters,
        model_scores.score,
        model_scores.ci_low,
        model_scores.ci_high,
        model_rank_stats.median_rank,
        model_rank_stats.rank_ci_low,
        model_rank_stats.rank_ci_high,
        model_rank_stats.rank_upper_bound,
        model_rank_stats.p_rank_1,
        model_scores.judge_ids,
        model_scores.unranked_reason,
        model_scores.is_below_judge_floor,
        model_order.model_order as row_order
    from model_scores
    inner join model_order
        on model_scores.model_id = model_order.model_id
    left join model_rank_stats
        on model_scores.model_id = model_rank_stats.model_id
)

select * from final
