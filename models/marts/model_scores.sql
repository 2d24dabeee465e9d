{#- model score = mean of the model's cell scores over all tasks (exact_mean: identical cells give
    bitwise-identical scores, hence one rank); rank among the ranked models (int_models_judged:
    kind 'model' judged by the release's ranking judges; another is shown with its judges and
    the reason it is unranked); the compact letter display (the bootstrap's) and the rank upper
    bound, 1 + the number of models clearly better at the family-wise 95% level (their
    simultaneous interval against this model excludes 0); whether the judge misses its
    calibration floor on the model's replies. -#}
with

models as (
    select * from {{ ref('int_models_judged') }}
),

cells as (
    select * from {{ ref('int_cells_scored') }}
),

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

pair_differences as (
    select * from {{ ref('model_pair_differences') }}
),

judge_calibration_by_model as (
    select * from {{ ref('judge_calibration_by_model') }}
),

judge_floors as (
    -- over all the model's calibrated pairs
    select
        model_id,
        meets_calibration_floor
    from judge_calibration_by_model
    where dimension = 'all'
),

scored as (
    select
        model_id,
        count(*) as n_tasks,
        {{ exact_mean('score') }} as score
    from cells
    group by model_id
),

ranked as (
    select
        models.model_id,
        models.display_name,
        models.provider,
        models.kind,
        models.is_ranked,
        models.judge_ids,
        models.unranked_reason,
        scored.n_tasks,
        scored.score,
        case
            when models.is_ranked
                then cast(
                        rank() over (partition by models.is_ranked order by scored.score desc)
                        as {{ dbt.type_bigint() }}
                    )
        end as rank,
        -- the one ranking order (score, then model_id) that the bootstrap's pairs, the letters
        -- and the tables follow
        case
            when models.is_ranked
                then cast(
                        row_number()
                            over (
                                partition by models.is_ranked order by scored.score desc, models.model_id asc
                            )
                        as {{ dbt.type_bigint() }}
                    )
        end as ranking_position
    from models
    inner join scored
        on models.model_id = scored.model_id
),

intervals as (
    select
        model_id,
        ci_low,
        ci_high
    from bootstrap
    where statistic = 'model_score'
),

letters as (
    select
        model_id,
        letters
    from bootstrap
    where statistic = 'letters'
),

clearly_worse as (
    -- the model of each pair separated at the family-wise level that is clearly worse: the
    -- second when the difference (first - second) is clearly above 0, else the first
    select case when adjusted_ci_low > 0 then other_model_id else model_id end as model_id
    from pair_differences
    where is_separated_familywise
),

clearly_better_counts as (
    select
        model_id,
        count(*) as n_clearly_better
    from clearly_worse
    group by model_id
),

rank_bounds as (
    select
        ranked.model_id,
        cast(1 + coalesce(clearly_better_counts.n_clearly_better, 0) as {{ dbt.type_bigint() }})
            as rank_upper_bound
    from ranked
    left join clearly_better_counts
        on ranked.model_id = clearly_better_counts.model_id
    where ranked.is_ranked
),

final as (
    select
        {{ release_id() }} as release_id,
        ranked.model_id,
        ranked.display_name,
        ranked.provider,
        ranked.kind,
        ranked.n_tasks,
        ranked.score,
        intervals.ci_low,
        intervals.ci_high,
        ranked.rank,
        ranked.ranking_position,
        letters.letters,
        rank_bounds.rank_upper_bound,
        ranked.is_ranked,
        ranked.judge_ids,
        ranked.unranked_reason,
        not coalesce(judge_floors.meets_calibration_floor, false) as is_below_judge_floor
    from ranked
    left join intervals
        on ranked.model_id = intervals.model_id
    left join letters
        on ranked.model_id = letters.model_id
    left join rank_bounds
        on ranked.model_id = rank_bounds.model_id
    left join judge_floors
        on ranked.model_id = judge_floors.model_id
)

select * from final
