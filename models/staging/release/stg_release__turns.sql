with

source as (
    select * from {{ source('release', 'turns') }}
),

final as (
    select
        file_row_number,
        task_id,
        turn_index,
        role,
        content as turn_text
    from source
)

select * from final
