-- Every dimension and subcategory score (per model and pooled) has a bootstrap interval and
-- lies inside it.
with

dimension_scores as (
    select * from {{ ref('dimension_scores') }}
),

subcategory_scores as (
    select * from {{ ref('subcategory_scores') }}
),

scores as (
    select
        'dimension_scores' as mart,
        model_id,
        dimension as group_id,
        score,
        ci_low,
        ci_high
    from dimension_scores
    union all
    select
        'subcategory_scores' as mart,
        model_id,
        subcategory as group_id,
        score,
        ci_low,
        ci_high
    from subcategory_scores
),

final as (
    select * from scores
    where
        ci_low is null
        or ci_high is null
        or score < ci_low - 1e-9
        or score > ci_high + 1e-9
)

select * from final
