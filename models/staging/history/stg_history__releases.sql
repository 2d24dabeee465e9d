with

source as (
    select * from {{ source('history', 'releases') }}
),

final as (
    select
        release_id,
        published_at,
        manifest_sha256
    from source
)

select * from final
