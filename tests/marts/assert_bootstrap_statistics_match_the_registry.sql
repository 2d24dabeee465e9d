-- The task bootstrap's headline statistics (model_id, dimension and subcategory null) are exactly the
-- registry's metrics
-- whose interval_source is 'task_bootstrap', except those without a value on this release
-- (the clinician reference's score when the release has none, which the bootstrap leaves out).
-- The anchored headline scores ('anchored_*') are anchored_headline_metrics', not the registry's.
with

bootstrap as (
    select distinct statistic as metric from {{ ref('int_bootstrap_resampled') }}
    where model_id is null and dimension is null and subcategory is null and statistic not like 'anchored_%'
),

registry as (
    select metric from {{ ref('headline_metric_registry') }}
    where interval_source = 'task_bootstrap'
),

headline as (
    select * from {{ ref('headline_metrics') }}
),

final as (
    select
        coalesce(bootstrap.metric, registry.metric) as metric,
        case
            when bootstrap.metric is null then 'registered but not bootstrapped'
            else 'bootstrapped but not registered'
        end as problem
    from bootstrap
    full outer join registry
        on bootstrap.metric = registry.metric
    left join headline
        on registry.metric = headline.metric
    where
        registry.metric is null
        or (bootstrap.metric is null and headline.value is not null)
)

select * from final
