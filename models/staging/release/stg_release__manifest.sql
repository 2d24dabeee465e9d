with

source as (
    select * from {{ source('release', 'manifest') }}
),

final as (
    select
        cast(release as varchar) as release_id,
        cast(benchmark as varchar) as benchmark,
        cast(schema_version as integer) as schema_version,
        cast(created_at as varchar) as created_at,
        cast(synthetic as boolean) as is_synthetic
    from source
)

select * from final
