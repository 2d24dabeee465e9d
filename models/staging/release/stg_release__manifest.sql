with

source as (
    select * from {{ source('release', 'manifest') }}
),

final as (
    select
        cast(release as {{ dbt.type_string() }}) as release_id,
        cast(benchmark as {{ dbt.type_string() }}) as benchmark,
        cast(schema_version as {{ dbt.type_int() }}) as schema_version,
        cast(created_at as {{ dbt.type_string() }}) as created_at,
        cast(synthetic as {{ dbt.type_boolean() }}) as is_synthetic,
        -- optional: a manifest without primary_judge gives null
        {{ optional_field('source', 'primary_judge') }} as primary_judge_id
    from source
)

select * from final
