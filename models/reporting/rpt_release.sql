{#- The release the warehouse holds, for the report's header: its id, whether it is synthetic
    and when it was created, copied from the manifest at build time (the staging view reads the
    release folder, which may have moved since). -#}
with

manifest as (
    select * from {{ ref('stg_release__manifest') }}
),

final as (
    select
        release_id,
        is_synthetic,
        created_at
    from manifest
)

select * from final
