with

source as (
    select * from {{ source('history', 'release_tasks') }}
),

final as (
    select
        release_id,
        published_at,
        task_id
    from source
)

select * from final
