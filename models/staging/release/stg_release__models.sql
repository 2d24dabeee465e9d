with

source as (
    select * from {{ source('release', 'models') }}
),

final as (
    select
        file_row_number,
        model_id,
        display_name,
        provider,
        kind,
        -- only models of kind 'model' are ranked; the clinician reference stands beside them
        kind = 'model' as is_ranked
    from source
)

select * from final
