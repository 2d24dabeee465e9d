{#- Paper table T6 in long form (one row per subcategory x model; the table pivots the models
    into columns, listed by rpt_model_order): every subcategory, pooled and per model, each
    score with its task-bootstrap interval. -#}
with

subcategory_scores as (
    select * from {{ ref('subcategory_scores') }}
),

subcategories as (
    select * from {{ ref('subcategories') }}
),

model_scores as (
    select * from {{ ref('model_scores') }}
),

release as (
    select max(release_id) as release_id from model_scores
),

pooled as (
    select
        subcategory,
        n_tasks,
        score,
        ci_low,
        ci_high
    from subcategory_scores
    where is_pooled
),

per_model as (
    select
        subcategory,
        model_id,
        score,
        ci_low,
        ci_high
    from subcategory_scores
    where not is_pooled
),

final as (
    select
        release.release_id,
        subcategories.subcategory_id as subcategory,
        subcategories.label,
        pooled.n_tasks,
        pooled.score as pooled_score,
        pooled.ci_low as pooled_ci_low,
        pooled.ci_high as pooled_ci_high,
        per_model.model_id as pivot_key,
        per_model.score as pivot_value,
        per_model.ci_low as pivot_ci_low,
        per_model.ci_high as pivot_ci_high,
        cast(
            row_number() over (order by subcategories.display_order, per_model.model_id)
            as {{ dbt.type_bigint() }}
        ) as row_order
    from subcategories
    cross join release
    left join pooled
        on subcategories.subcategory_id = pooled.subcategory
    left join per_model
        on subcategories.subcategory_id = per_model.subcategory
)

select * from final
