{#- Mean cell score per subcategory; per model, and pooled over all cells of models of kind
    'model'. -#}
with

release as (
    select release_id from {{ ref('stg_release__manifest') }}
),

cells as (
    select * from {{ ref('int_cells_scored') }}
),

unioned as (
    {{ cell_score_means('cells', 'subcategory') }}
),

final as (
    select
        release.release_id,
        unioned.*,
    from unioned
    cross join release
)

select * from final
