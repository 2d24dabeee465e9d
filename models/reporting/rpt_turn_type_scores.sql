{#- Paper table T5: single-turn and multi-turn scores side by side per model, and pooled with
    their bootstrap intervals; the clinician reference last. -#}
with

turn_type_scores as (
    select * from {{ ref('turn_type_scores') }}
),

headline_metrics as (
    select * from {{ ref('headline_metrics') }}
),

registry as (
    select * from {{ ref('headline_metric_registry') }}
),

model_order as (
    select * from {{ ref('rpt_model_order') }}
),

pooled_intervals as (
    -- the headline metrics that are this mart's pooled rows, one per turn type, as the registry says
    select
        registry.pooled_row_group as turn_type,
        headline_metrics.ci_low,
        headline_metrics.ci_high
    from headline_metrics
    inner join registry
        on headline_metrics.metric = registry.metric
    where registry.pooled_row_of = 'turn_type_scores'
),

single_interval as (
    select
        ci_low,
        ci_high
    from pooled_intervals
    where turn_type = 'single'
),

multi_interval as (
    select
        ci_low,
        ci_high
    from pooled_intervals
    where turn_type = 'multi'
),

side_by_side as (
    select
        release_id,
        is_pooled,
        model_id,
        max(case when turn_type = 'single' then n_cells end) as n_single_cells,
        max(case when turn_type = 'single' then score end) as single_score,
        max(case when turn_type = 'multi' then n_cells end) as n_multi_cells,
        max(case when turn_type = 'multi' then score end) as multi_score
    from turn_type_scores
    group by release_id, is_pooled, model_id
),

joined as (
    select
        side_by_side.release_id,
        case when side_by_side.is_pooled then 'pooled' else model_order.row_group end as row_group,
        side_by_side.model_id,
        case when side_by_side.is_pooled then 'All ranked models (pooled)' else model_order.display_name end as label,
        side_by_side.n_single_cells,
        side_by_side.single_score,
        single_interval.ci_low as single_ci_low,
        single_interval.ci_high as single_ci_high,
        side_by_side.n_multi_cells,
        side_by_side.multi_score,
        multi_interval.ci_low as multi_ci_low,
        multi_interval.ci_high as multi_ci_high,
        case
            when side_by_side.is_pooled then 1
            when model_order.row_group = 'reference' then 2
            else 0
        end as block_order,
        model_order.model_order
    from side_by_side
    left join model_order
        on
            side_by_side.model_id = model_order.model_id
            and not side_by_side.is_pooled
    left join single_interval
        on side_by_side.is_pooled
    left join multi_interval
        on side_by_side.is_pooled
),

final as (
    select
        release_id,
        row_group,
        model_id,
        label,
        n_single_cells,
        single_score,
        single_ci_low,
        single_ci_high,
        n_multi_cells,
        multi_score,
        multi_ci_low,
        multi_ci_high,
        cast(row_number() over (order by block_order, model_order) as {{ dbt.type_bigint() }}) as row_order
    from joined
)

select * from final
