with

source as (
    select * from {{ source('release', 'calibration_labels') }}
),

final as (
    select
        file_row_number,
        response_id,
        criterion_id,
        annotator_id,
        met as is_met
    from source
)

select * from final
