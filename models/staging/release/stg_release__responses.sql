{{ config(
    pre_hook="{{ long_text_storage(true) }}",
    post_hook="{{ long_text_storage(false) }}"
) }}
with

source as (
    select * from {{ source('release', 'responses') }}
),

final as (
    select
        file_row_number,
        -- integer surrogate key, assigned once here (the verdicts are stored by it)
        cast(dense_rank() over (order by response_id) as {{ dbt.type_int() }}) as response_key,
        response_id,
        task_id,
        model_id,
        content as response_text,
        -- an empty reply (nothing but white space) satisfies no criterion
        {{ is_blank('content') }} as is_empty
    from source
)

select * from final
