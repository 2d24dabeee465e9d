{#- Paper table T4: recognized but not routed per model, the pooled rate with its bootstrap
    interval, the clinician reference last. -#}
with

recognized_not_routed as (
    select * from {{ ref('recognized_not_routed') }}
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

pooled_interval as (
    -- the headline metric that is this mart's pooled row, as the registry says
    select
        headline_metrics.ci_low,
        headline_metrics.ci_high
    from headline_metrics
    inner join registry
        on headline_metrics.metric = registry.metric
    where registry.pooled_row_of = 'recognized_not_routed'
),

joined as (
    select
        recognized_not_routed.release_id,
        case when recognized_not_routed.is_pooled then 'pooled' else model_order.row_group end as row_group,
        recognized_not_routed.model_id,
        case
            when recognized_not_routed.is_pooled then 'All ranked models (pooled)' else model_order.display_name
        end as label,
        recognized_not_routed.n_recognized,
        recognized_not_routed.n_not_routed,
        recognized_not_routed.rate,
        pooled_interval.ci_low as rate_ci_low,
        pooled_interval.ci_high as rate_ci_high,
        case
            when recognized_not_routed.is_pooled then 1
            when model_order.row_group = 'reference' then 2
            else 0
        end as block_order,
        model_order.model_order
    from recognized_not_routed
    left join model_order
        on
            recognized_not_routed.model_id = model_order.model_id
            and not recognized_not_routed.is_pooled
    left join pooled_interval
        on recognized_not_routed.is_pooled
),

final as (
    select
        release_id,
        row_group,
        model_id,
        label,
        n_recognized,
        n_not_routed,
        rate,
        rate_ci_low,
        rate_ci_high,
        cast(row_number() over (order by block_order, model_order) as {{ dbt.type_bigint() }}) as row_order
    from joined
)

select * from final
