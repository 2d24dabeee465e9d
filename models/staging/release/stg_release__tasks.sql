with

source as (
    select * from {{ source('release', 'tasks') }}
),

final as (
    select
        file_row_number,
        task_id,
        subcategory,
        n_user_turns,
        -- turn type: 'single' when the conversation has one user turn, else 'multi'
        case when n_user_turns = 1 then 'single' else 'multi' end as turn_type,
        reference_response
    from source
)

select * from final
