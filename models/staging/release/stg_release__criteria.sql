with

source as (
    select * from {{ source('release', 'criteria') }}
),

final as (
    select
        criterion_id,
        task_id,
        dimension,
        weight,
        text as criterion_text
    from source
)

select * from final
