with

source as (
    select * from {{ source('history', 'dimension_scores') }}
),

final as (
    select
        release_id,
        published_at,
        model_id,
        kind,
        dimension,
        n_tasks,
        score
    from source
)

select * from final
