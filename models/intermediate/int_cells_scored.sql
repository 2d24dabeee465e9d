{#- cell score(model, task) = sum(weight * met) / sum(weight) over the task's criteria. -#}
with

cell_dimensions as (
    select * from {{ ref('int_cell_dimensions_scored') }}
),

models as (
    select * from {{ ref('stg_release__models') }}
),

tasks as (
    select * from {{ ref('stg_release__tasks') }}
),

totals as (
    select
        response_id,
        model_id,
        task_id,
        cast(sum(n_criteria) as bigint) as n_criteria,
        cast(sum(n_met) as bigint) as n_met,
        cast(sum(weight_total) as bigint) as weight_total,
        cast(sum(weight_met) as bigint) as weight_met
    from cell_dimensions
    group by response_id, model_id, task_id
),

final as (
    select
        totals.response_id,
        totals.model_id,
        models.kind,
        models.is_ranked,
        totals.task_id,
        tasks.subcategory,
        tasks.turn_type,
        totals.n_criteria,
        totals.n_met,
        totals.weight_total,
        totals.weight_met,
        totals.weight_met / totals.weight_total as score
    from totals
    inner join models
        on totals.model_id = models.model_id
    inner join tasks
        on totals.task_id = tasks.task_id
)

select * from final
