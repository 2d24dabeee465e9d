{#- The pivot column list of the dimension table: one column per dimension, under 'Act' or
    'Withhold'. A dimension whose judge misses the calibration floor (judge_calibration) carries
    the floor mark, here and wherever its scores are shown (paper tables T3 and P). -#}
with

dimensions as (
    select * from {{ ref('dimensions') }}
),

judge_calibration as (
    select * from {{ ref('judge_calibration') }}
),

marked as (
    select
        dimensions.dimension_id,
        dimensions.label as dimension_label,
        dimensions.dimension_kind,
        dimensions.display_order,
        case
            when coalesce(judge_calibration.meets_calibration_floor, false) then ''
            else {{ string_literal(' ' ~ var('calibration_floor_mark')) }}
        end as floor_mark
    from dimensions
    left join judge_calibration
        on dimensions.dimension_id = judge_calibration.dimension
),

final as (
    select
        dimension_id,
        dimension_label || floor_mark as label,
        dimension_label,
        floor_mark,
        case when dimension_kind = 'withhold' then 'Withhold' else 'Act' end as column_group,
        display_order
    from marked
)

select * from final
