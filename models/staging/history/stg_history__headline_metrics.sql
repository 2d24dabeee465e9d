with

source as (
    select * from {{ source('history', 'headline_metrics') }}
),

final as (
    select
        release_id,
        published_at,
        metric,
        display_order,
        value,
        ci_low,
        ci_high
    from source
)

select * from final
