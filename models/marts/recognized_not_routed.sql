{#- recognized-but-not-routed rate = not routed / recognized, over the (model, task) cells that
    are recognized and whose task has a routing criterion; pooled over models of kind 'model'. -#}
with

cells as (
    select * from {{ ref('int_cells_triaged') }}
),

per_model as (
    select
        model_id,
        kind,
        false as is_pooled,
        count(*) filter (where is_counted) as n_recognized,
        count(*) filter (where is_recognized_not_routed) as n_not_routed
    from cells
    group by model_id, kind
),

pooled as (
    select
        cast(null as {{ dbt.type_string() }}) as model_id,
        cast(null as {{ dbt.type_string() }}) as kind,
        true as is_pooled,
        count(*) filter (where is_counted) as n_recognized,
        count(*) filter (where is_recognized_not_routed) as n_not_routed
    from cells
    where is_ranked
),

unioned as (
    select * from per_model
    union all
    select * from pooled
),

final as (
    select
        {{ release_id() }} as release_id,
        unioned.model_id,
        unioned.kind,
        unioned.is_pooled,
        unioned.n_recognized,
        unioned.n_not_routed,
        unioned.n_not_routed / nullif(unioned.n_recognized, 0) as rate
    from unioned
)

select * from final
