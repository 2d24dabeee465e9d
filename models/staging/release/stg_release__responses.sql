with

source as (
    select * from {{ source('release', 'responses') }}
),

final as (
    select
        response_id,
        task_id,
        model_id,
        content as response_text,
        -- an empty reply (nothing but white space) satisfies no criterion
        regexp_full_match(coalesce(content, ''), '\s*') as is_empty
    from source
)

select * from final
