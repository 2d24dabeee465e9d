{#- Paper table T3 in long form (one row per row x dimension; the table pivots the dimensions
    into columns, listed by rpt_dimension_columns): every model, then the best and median
    ranked model, then the clinician reference; each score with its task-bootstrap interval
    (the best and median rows': headline_metrics' best_<dimension>_score and
    median_<dimension>_score). -#}
with

dimension_scores as (
    select * from {{ ref('dimension_scores') }}
),

dimension_summary as (
    select * from {{ ref('dimension_summary') }}
),

model_order as (
    select * from {{ ref('rpt_model_order') }}
),

headline_metrics as (
    select * from {{ ref('headline_metrics') }}
),

model_rows as (
    select
        dimension_scores.release_id,
        model_order.row_group,
        dimension_scores.model_id,
        model_order.display_name as label,
        case when model_order.row_group = 'reference' then 1000000 else model_order.model_order end as block_order,
        dimension_scores.dimension as pivot_key,
        dimension_scores.score as pivot_value,
        dimension_scores.ci_low as pivot_ci_low,
        dimension_scores.ci_high as pivot_ci_high
    from dimension_scores
    inner join model_order
        on dimension_scores.model_id = model_order.model_id
),

best_rows as (
    select
        dimension_summary.release_id,
        'best' as row_group,
        cast(null as {{ dbt.type_string() }}) as model_id,
        'Best' as label,
        999998 as block_order,
        dimension_summary.dimension as pivot_key,
        dimension_summary.best_score as pivot_value,
        headline_metrics.ci_low as pivot_ci_low,
        headline_metrics.ci_high as pivot_ci_high
    from dimension_summary
    left join headline_metrics
        on {{ dbt.concat(["'best_'", "dimension_summary.dimension", "'_score'"]) }} = headline_metrics.metric
),

median_rows as (
    select
        dimension_summary.release_id,
        'median' as row_group,
        cast(null as {{ dbt.type_string() }}) as model_id,
        'Median' as label,
        999999 as block_order,
        dimension_summary.dimension as pivot_key,
        dimension_summary.median_score as pivot_value,
        headline_metrics.ci_low as pivot_ci_low,
        headline_metrics.ci_high as pivot_ci_high
    from dimension_summary
    left join headline_metrics
        on {{ dbt.concat(["'median_'", "dimension_summary.dimension", "'_score'"]) }} = headline_metrics.metric
),

unioned as (
    select * from model_rows
    union all
    select * from best_rows
    union all
    select * from median_rows
),

final as (
    select
        release_id,
        row_group,
        model_id,
        label,
        pivot_key,
        pivot_value,
        pivot_ci_low,
        pivot_ci_high,
        cast(row_number() over (order by block_order, pivot_key) as {{ dbt.type_bigint() }}) as row_order
    from unioned
)

select * from final
