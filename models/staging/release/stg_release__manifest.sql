with

source as (
    select * from {{ source('release', 'manifest') }}
),

final as (
    select
        release::varchar as release_id,
        benchmark::varchar as benchmark,
        schema_version::integer as schema_version,
        created_at::varchar as created_at,
        synthetic::boolean as is_synthetic,
    from source
)

select * from final
