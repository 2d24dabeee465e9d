{#- The pivot column list of the dimension table: one column per dimension, under 'Act' or
    'Withhold'. -#}
with

dimensions as (
    select * from {{ ref('dimensions') }}
),

final as (
    select
        dimension_id,
        label,
        case when kind = 'withhold' then 'Withhold' else 'Act' end as column_group,
        display_order
    from dimensions
)

select * from final
