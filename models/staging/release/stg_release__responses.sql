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
        -- an empty reply (nothing but white space: space, tab, line feed, form feed, carriage
        -- return) satisfies no criterion; written without a regular expression or backslash,
        -- which engines read differently
        translate(coalesce(content, ''), concat(' ', chr(9), chr(10), chr(12), chr(13)), '') = '' as is_empty
    from source
)

select * from final
