with

source as (
    select * from {{ source('release', 'judge_labels') }}
),

final as (
    select
        response_id,
        criterion_id,
        judge_id,
        sample_index,
        met as is_met
    from source
)

select * from final
