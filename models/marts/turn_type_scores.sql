{#- turn-type score = mean cell score over the cells of that turn type; per model, and pooled
    over all cells of models of kind 'model'. -#}
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
        turn_type,
        count(*) as n_cells,
        avg(score) as score,
    from cells
    group by model_id, kind, turn_type
),

pooled as (
    select
        null::varchar as model_id,
        null::varchar as kind,
        true as is_pooled,
        turn_type,
        count(*) as n_cells,
        avg(score) as score,
    from cells
    where is_ranked
    group by turn_type
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
