{{ config(materialized='view') }}
{#- One row per raw judge label. A view, read once by int_judge_labels_aggregated (which the
    release build runs with this SQL inlined): the raw labels are not copied into the warehouse. -#}
with

source as (
    select * from {{ source('release', 'judge_labels') }}
),

final as (
    select
        file_row_number,
        response_id,
        criterion_id,
        judge_id,
        sample_index,
        met as is_met
    from source
)

select * from final
