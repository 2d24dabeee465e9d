with

source as (
    select * from {{ source('release', 'models') }}
),

final as (
    select
        file_row_number,
        model_id,
        -- the name every table and figure shows: the model_id where the release gives none
        case when {{ is_blank('display_name') }} then model_id else display_name end as display_name,
        provider,
        kind,
        -- of the kind that is ranked (the clinician reference stands beside them); whether a
        -- model is ranked also takes its judges: int_models_judged.is_ranked
        kind = 'model' as is_ranked
    from source
)

select * from final
