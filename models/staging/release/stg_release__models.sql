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
        -- of the kind that is ranked (the clinician reference stands beside them); whether a
        -- model is ranked also takes its judges: int_models_judged.is_ranked
        kind = 'model' as is_ranked
    from source
)

select * from final
