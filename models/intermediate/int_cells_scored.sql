{#- cell score(model, task) = sum(weight * met) / sum(weight) over the task's criteria. -#}
with

cell_dimensions as (
    select * from {{ ref('int_cell_dimensions_scored') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

models as (
    -- whether a model is ranked is int_models_judged's (like ranked with like)
    select * from {{ ref('int_models_judged') }}
),

tasks as (
    select * from {{ ref('stg_release__tasks') }}
),

-- grouped by the reply's integer key, the ids joined to the 1 row per reply afterwards
totals as (
    select
        response_key,
        cast(sum(n_criteria) as {{ dbt.type_bigint() }}) as n_criteria,
        cast(sum(n_met) as {{ dbt.type_bigint() }}) as n_met,
        cast(sum(weight_total) as {{ dbt.type_bigint() }}) as weight_total,
        cast(sum(weight_met) as {{ dbt.type_bigint() }}) as weight_met
    from cell_dimensions
    group by response_key
),

final as (
    select
        responses.response_id,
        totals.response_key,
        responses.model_id,
        models.kind,
        models.is_ranked,
        responses.task_id,
        tasks.subcategory,
        tasks.turn_type,
        totals.n_criteria,
        totals.n_met,
        totals.weight_total,
        totals.weight_met,
        totals.weight_met / totals.weight_total as score
    from totals
    inner join responses
        on totals.response_key = responses.response_key
    inner join models
        on responses.model_id = models.model_id
    inner join tasks
        on responses.task_id = tasks.task_id
)

select * from final
