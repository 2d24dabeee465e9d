{#- Mean cell score per subcategory; per model, and pooled over all cells of models of kind
    'model'. -#}
with

release as (
    select release_id from {{ ref('stg_release__manifest') }}
),

cells as (
    select * from {{ ref('int_cells_scored') }}
),

per_model as (
    select
        model_id,
        kind,
        false as is_pooled,
        subcategory,
        count(*) as n_tasks,
        count(*) as n_cells,
        avg(score) as score,
    from cells
    group by model_id, kind, subcategory
),

pooled as (
    select
        null::varchar as model_id,
        null::varchar as kind,
        true as is_pooled,
        subcategory,
        count(distinct task_id) as n_tasks,
        count(*) as n_cells,
        avg(score) as score,
    from cells
    where is_ranked
    group by subcategory
),

unioned as (
    select * from per_model
    union all
    select * from pooled
),

final as (
    select
        release.release_id,
        unioned.*,
    from unioned
    cross join release
)

select * from final
