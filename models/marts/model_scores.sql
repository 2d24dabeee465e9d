{#- model score = mean of the model's cell scores over all tasks (exact_mean: identical cells give
    bitwise-identical scores, hence one rank); rank among kind 'model'. -#}
with

models as (
    select * from {{ ref('stg_release__models') }}
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
        scored.n_tasks,
        scored.score,
        case
            when models.is_ranked
                then cast(
                        rank() over (partition by models.is_ranked order by scored.score desc)
                        as {{ dbt.type_bigint() }}
                    )
        end as rank,
        -- the one ranking order (score, then model_id) that the bootstrap's pairs, the tie
        -- groups and the tables follow
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

tie_groups as (
    -- walking down the ranking, a new group starts below every pair whose paired
    -- difference is clearly non-zero
    select
        ranked.model_id,
        1 + cast(coalesce(
            sum(case when pair_differences.is_separated then 1 else 0 end) over (
                order by ranked.ranking_position
                rows between unbounded preceding and current row
            ),
            0
        ) as integer) as tie_group
    from ranked
    left join pair_differences
        on ranked.model_id = pair_differences.next_model_id
    where ranked.kind = 'model'
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
        tie_groups.tie_group
    from ranked
    left join intervals
        on ranked.model_id = intervals.model_id
    left join tie_groups
        on ranked.model_id = tie_groups.model_id
)

select * from final
