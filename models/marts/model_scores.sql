{#- model score = mean of the model's cell scores over all tasks; rank among kind 'model'. -#}
with

release as (
    select release_id from {{ ref('stg_release__manifest') }}
),

models as (
    select * from {{ ref('stg_release__models') }}
),

cells as (
    select * from {{ ref('int_cells_scored') }}
),

scored as (
    select
        model_id,
        count(*) as n_tasks,
        avg(score) as score,
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
                then rank() over (partition by models.is_ranked order by scored.score desc)
        end as rank,
    from models
    inner join scored
        on models.model_id = scored.model_id
),

final as (
    select
        release.release_id,
        ranked.model_id,
        ranked.display_name,
        ranked.provider,
        ranked.kind,
        ranked.n_tasks,
        ranked.score,
        null::double as ci_low,
        null::double as ci_high,
        ranked.rank,
        null::integer as tie_group,
    from ranked
    cross join release
)

select * from final
