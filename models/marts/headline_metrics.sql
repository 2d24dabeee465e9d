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

judge_calibration as (
    select * from {{ ref('judge_calibration') }}
),

judge_agreement_by_judge as (
    select * from {{ ref('judge_agreement_by_judge') }}
),

model_summary as (
    select
        release_id,
        {{ best_and_median_model_scores('score', ranked="kind = 'model'") }},
        max(case when kind = 'clinician_reference' then score end) as reference_score
    from model_scores
    group by release_id
),

model_metrics as (
    select
        release_id,
        'best_model_score' as metric,
        best_model_score as value
    from model_summary
    union all
    select
        release_id,
        'median_model_score' as metric,
        median_model_score as value
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

judge_metrics as (
    select
        release_id,
        'judge_kappa' as metric,
        kappa as value,
        kappa_ci_low as ci_low,
        kappa_ci_high as ci_high
    from judge_calibration
    where dimension = 'all'
    union all
    select
        release_id,
        -- the primary judge's alone (never every judge pooled); its interval is the task
        -- bootstrap's (registry interval_source 'task_bootstrap')
        'judge_alpha' as metric,
        krippendorff_alpha as value,
        cast(null as {{ type_double() }}) as ci_low,
        cast(null as {{ type_double() }}) as ci_high
    from judge_agreement_by_judge
    where dimension = 'all' and is_primary_judge
),

intervals as (
    -- each metric's interval, by the registry's interval_source ('none': no interval)
    select
        statistic as metric,
        'task_bootstrap' as interval_source,
        ci_low,
        ci_high
    from bootstrap
    where model_id is null and dimension is null and judge_id is null
    union all
    select
        'judge_alpha' as metric,
        'task_bootstrap' as interval_source,
        alpha_ci_low as ci_low,
        alpha_ci_high as ci_high
    from judge_agreement_by_judge
    where dimension = 'all' and is_primary_judge
    union all
    select
        metric,
        'calibration_bootstrap' as interval_source,
        ci_low,
        ci_high
    from judge_metrics
),

unioned as (
    select * from model_metrics
    union all
    select * from routing_metrics
    union all
    select * from turn_type_metrics
    union all
    select
        release_id,
        metric,
        value
    from judge_metrics
    union all
    select * from dimension_metrics
),

final as (
    select
        unioned.release_id,
        unioned.metric,
        registry.display_order,
        unioned.value,
        intervals.ci_low,
        intervals.ci_high,
        registry.paper_value,
        unioned.value - registry.paper_value as difference_from_paper
    from unioned
    left join registry
        on unioned.metric = registry.metric
    left join intervals
        on
            unioned.metric = intervals.metric
            and registry.interval_source = intervals.interval_source
)

select * from final
