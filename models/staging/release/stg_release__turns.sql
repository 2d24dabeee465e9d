with

source as (
    select * from {{ source('release', 'turns') }}
),

final as (
    select
        task_id,
        turn_index,
        role,
        content as turn_text
    from source
)

select * from final
