with

source as (
    select * from {{ source('release', 'criteria') }}
),

final as (
    select
        file_row_number,
        -- integer surrogate key, assigned once here (the verdicts are stored by it)
        cast(dense_rank() over (order by criterion_id) as {{ dbt.type_int() }}) as criterion_key,
        criterion_id,
        task_id,
        dimension,
        weight,
        text as criterion_text
    from source
)

select * from final
