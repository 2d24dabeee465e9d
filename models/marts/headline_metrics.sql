{#- The paper's headline numbers, one row per metric. Which metrics exist, their labels, display
    order and the paper's values live in one place, the seed headline_metric_registry; each CTE
    below computes some of them by name (a test checks that the two lists agree). -#}
with

model_scores as (
    select * from {{ ref('model_scores') }}
),

recognized_not_routed as (
    select * from {{ ref('recognized_not_routed') }}
),

turn_type_scores as (
    select * from {{ ref('turn_type_scores') }}
),

dimension_summary as (
    select * from {{ ref('dimension_summary') }}
),

registry as (
    select * from {{ ref('headline_metric_registry') }}
),

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

model_summary as (
    select
        release_id,
        max(case when kind = 'model' then score end) as best_score,
        {{ median_of("case when kind = 'model' then score end") }} as median_score,
        max(case when kind = 'clinician_reference' then score end) as reference_score
    from model_scores
    group by release_id
),

model_metrics as (
    select
        release_id,
        'best_model_score' as metric,
        best_score as value
    from model_summary
    union all
    select
        release_id,
        'median_model_score' as metric,
        median_score as value
    from model_summary
    union all
    select
        release_id,
        'clinician_reference_score' as metric,
        reference_score as value
    from model_summary
),

routing_metrics as (
    select
        release_id,
        'recognized_not_routed_rate' as metric,
        rate as value
    from recognized_not_routed
    where is_pooled
),

turn_type_summary as (
    select
        release_id,
        max(case when turn_type = 'single' then score end) as single_score,
        max(case when turn_type = 'multi' then score end) as multi_score
    from turn_type_scores
    where is_pooled
    group by release_id
),

turn_type_metrics as (
    select
        release_id,
        'single_turn_score' as metric,
        single_score as value
    from turn_type_summary
    union all
    select
        release_id,
        'multi_turn_score' as metric,
        multi_score as value
    from turn_type_summary
    union all
    select
        release_id,
        'multi_minus_single' as metric,
        multi_score - single_score as value
    from turn_type_summary
),

dimension_metrics as (
    select
        release_id,
        'best_' || dimension || '_score' as metric,
        best_score as value
    from dimension_summary
    union all
    select
        release_id,
        'median_' || dimension || '_score' as metric,
        median_score as value
    from dimension_summary
),

unioned as (
    select * from model_metrics
    union all
    select * from routing_metrics
    union all
    select * from turn_type_metrics
    union all
    select * from dimension_metrics
),

final as (
    select
        unioned.release_id,
        unioned.metric,
        registry.display_order,
        unioned.value,
        bootstrap.ci_low,
        bootstrap.ci_high,
        registry.paper_value,
        unioned.value - registry.paper_value as difference_from_paper
    from unioned
    left join registry
        on unioned.metric = registry.metric
    left join bootstrap
        on
            unioned.metric = bootstrap.statistic
            and bootstrap.model_id is null
)

select * from final
