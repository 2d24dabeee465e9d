{{ config(materialized='ephemeral') }}
{#- One row per raw judge label. Ephemeral: read once, inlined into int_judge_labels_aggregated
    (and into its tests), so the raw labels are not copied into the warehouse and the warehouse
    reads nothing outside itself. -#}
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
