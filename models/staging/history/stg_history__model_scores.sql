with

source as (
    select * from {{ source('history', 'model_scores') }}
),

final as (
    select
        release_id,
        published_at,
        model_id,
        display_name,
        kind,
        n_tasks,
        score,
        ci_low,
        ci_high,
        rank,
        letters,
        rank_upper_bound
    from source
)

select * from final
