-- Every headline metric is registered in the seed headline_metric_registry, and every
-- registered metric is computed by headline_metrics: the two lists are one. A registered
-- metric may be undefined on a release (a dimension without criteria, no clinician labels):
-- its row then has a null value and names why in undefined_reason; a null value without a
-- reason is a metric no CTE computes.
with

computed as (
    select * from {{ ref('headline_metrics') }}
),

registry as (
    select metric from {{ ref('headline_metric_registry') }}
),

final as (
    select
        coalesce(computed.metric, registry.metric) as metric,
        case
            when computed.metric is null or computed.undefined_reason is null then 'registered but not computed'
            else 'computed but not registered'
        end as problem
    from computed
    full outer join registry
        on computed.metric = registry.metric
    where
        computed.metric is null
        or registry.metric is null
        or (computed.value is null and computed.undefined_reason is null)
)

select * from final
