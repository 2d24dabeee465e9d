{#- The headline scores anchored to the clinicians: for the best, median and clinician-reference
    scores and each dimension's best and median, the judge-only value of headline_metrics
    beside the anchored one (best and median over the ranked models that have an anchored
    score, taken within each resample), with task-bootstrap intervals. -#}
with

headline_metrics as (
    select * from {{ ref('headline_metrics') }}
),

registry as (
    select * from {{ ref('headline_metric_registry') }}
),

model_scores as (
    select * from {{ ref('model_scores') }}
),

anchored_pairs as (
    select * from {{ ref('int_anchored_pairs') }}
),

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

scored_metrics as (
    select
        headline_metrics.*,
        registry.metric_group
    from headline_metrics
    inner join registry
        on headline_metrics.metric = registry.metric
    where
        registry.metric_group = 'dimension'
        or registry.metric in ('best_model_score', 'median_model_score', 'clinician_reference_score')
),

anchored as (
    select
        case
            when statistic = 'anchored_best_model_score' then 'best_model_score'
            when statistic = 'anchored_median_model_score' then 'median_model_score'
            when statistic = 'anchored_clinician_reference_score' then 'clinician_reference_score'
            when statistic = 'anchored_best_dimension_score' then 'best_' || dimension || '_score'
            when statistic = 'anchored_median_dimension_score' then 'median_' || dimension || '_score'
        end as metric,
        case
            when statistic = 'anchored_clinician_reference_score' then 'clinician_reference' else 'model'
        end as kind,
        coalesce(dimension, 'all') as dimension,
        estimate as anchored_value,
        ci_low as anchored_ci_low,
        ci_high as anchored_ci_high
    from bootstrap
    where
        statistic in (
            'anchored_best_model_score',
            'anchored_median_model_score',
            'anchored_clinician_reference_score',
            'anchored_best_dimension_score',
            'anchored_median_dimension_score'
        )
),

-- the anchored scores the best and median are taken over: ranked models ('all') and their
-- dimensions, each with its calibrated pairs
anchored_groups as (
    select
        bootstrap.model_id,
        -- the ranked models are the best's and median's; the reference is its own metric
        case
            when model_scores.is_ranked then 'model'
            when model_scores.kind = 'clinician_reference' then 'clinician_reference'
            else 'unranked'
        end as kind,
        coalesce(bootstrap.dimension, 'all') as dimension
    from bootstrap
    inner join model_scores
        on bootstrap.model_id = model_scores.model_id
    where bootstrap.statistic in ('anchored_score', 'anchored_dimension_score')
),

group_pairs as (
    select
        anchored_groups.kind,
        anchored_groups.dimension,
        count(distinct anchored_groups.model_id) as n_models,
        count(*) as n_clinician_pairs
    from anchored_groups
    inner join anchored_pairs
        on
            anchored_groups.model_id = anchored_pairs.model_id
            and anchored_groups.dimension in ('all', anchored_pairs.dimension)
    group by anchored_groups.kind, anchored_groups.dimension
),

final as (
    select
        scored_metrics.release_id,
        scored_metrics.metric,
        scored_metrics.display_order,
        scored_metrics.value,
        scored_metrics.ci_low,
        scored_metrics.ci_high,
        group_pairs.n_models,
        group_pairs.n_clinician_pairs,
        anchored.anchored_value,
        anchored.anchored_ci_low,
        anchored.anchored_ci_high,
        case
            when anchored.anchored_value is not null then cast(null as {{ dbt.type_string() }})
            when scored_metrics.value is null then scored_metrics.undefined_reason
            when
                scored_metrics.metric_group = 'dimension'
                and not {{ 'true' if var('anchored_by_dimension') else 'false' }}
                then 'anchored dimension scores are off (var anchored_by_dimension)'
            when scored_metrics.metric = 'clinician_reference_score'
                then
                    'the clinician reference has fewer than '
                    || cast({{ var('anchored_min_pairs') }} as {{ dbt.type_string() }})
                    || ' calibrated pairs'
            else
                'no ranked model has '
                || cast({{ var('anchored_min_pairs') }} as {{ dbt.type_string() }})
                || ' or more calibrated pairs in it'
        end as anchored_null_reason
    from scored_metrics
    left join anchored
        on scored_metrics.metric = anchored.metric
    left join group_pairs
        on
            anchored.kind = group_pairs.kind
            and anchored.dimension = group_pairs.dimension
)

select * from final
