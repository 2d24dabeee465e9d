{#- The previous release: the latest one in history (by published_at) whose id is not this
    release's. No row when history holds no other release. -#}
with

history_releases as (
    select * from {{ ref('stg_history__releases') }}
),

other_releases as (
    select
        history_releases.release_id,
        history_releases.published_at,
        row_number() over (
            order by history_releases.published_at desc nulls last, history_releases.release_id desc
        ) as recency
    from history_releases
    where history_releases.release_id != {{ release_id() }}
),

final as (
    select
        release_id as previous_release_id,
        published_at as previous_published_at
    from other_releases
    where recency = 1
)

select * from final
