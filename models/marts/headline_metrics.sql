{#- The paper's headline numbers, one row per metric. Which metrics exist, their labels, display
    order and the paper's values live in one place, the seed headline_metric_registry; each CTE
    below computes some of them by name (a test checks that the two lists agree). Every
    registered metric has a row: one the release cannot define (a dimension without criteria,
    no clinician labels, ...) has a null value and interval and says why in undefined_reason. -#}
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

triaged_cells as (
    select * from {{ ref('int_cells_triaged') }}
),

model_summary as (
    select
        release_id,
        {{ best_and_median_model_scores('score', ranked="is_ranked") }},
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

absent_dimensions as (
    select dimension from dimension_summary
    where n_tasks = 0
),

routing_coverage as (
    select
        count(*) filter (where has_routing) as n_routing_cells,
        count(*) filter (where has_recognition) as n_recognition_cells,
        count(*) filter (where has_routing and has_recognition) as n_both_cells
    from triaged_cells
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
    where model_id is null and dimension is null and subcategory is null and judge_id is null
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

undefined_reasons as (
    -- why a metric has no value on this release (null where it has one)
    select
        registry.metric,
        case
            when registry.metric = 'recognized_not_routed_rate'
                then case
                        when routing_coverage.n_routing_cells = 0 then 'no routing criterion in the release'
                        when routing_coverage.n_recognition_cells = 0 then 'no recognition criterion in the release'
                        when routing_coverage.n_both_cells = 0
                            then 'no task has both a recognition and a routing criterion'
                        else 'no reply of a ranked model is recognized on a task with a routing criterion'
                    end
            when registry.metric = 'single_turn_score' then 'no single-turn task in the release'
            when registry.metric = 'multi_turn_score' then 'no multi-turn task in the release'
            when registry.metric = 'multi_minus_single'
                then 'the release lacks single-turn or multi-turn tasks'
            when registry.metric = 'judge_kappa'
                then case
                        when judge_calibration.n + judge_calibration.n_ties_dropped = 0
                            then 'no clinician labels in this release: judge calibration is undefined'
                        when judge_calibration.n = 0 then 'every calibrated pair is a clinician tie'
                        else 'chance agreement is 1: the judge or the clinicians give one value on every pair'
                    end
            when registry.metric = 'judge_alpha'
                then case
                        when coalesce(primary_judge_agreement.n_pairs, 0) = 0
                            then 'no pair of a non-empty reply has two or more labels of the primary judge'
                        else 'every label of those pairs has the same value'
                    end
            when absent_dimensions.dimension is not null then 'no criterion of this dimension in the release'
        end as undefined_reason
    from registry
    cross join routing_coverage
    left join absent_dimensions
        on registry.metric in (
                'best_' || absent_dimensions.dimension || '_score',
                'median_' || absent_dimensions.dimension || '_score'
            )
    left join judge_calibration
        on judge_calibration.dimension = 'all'
    left join judge_agreement_by_judge as primary_judge_agreement
        on
            primary_judge_agreement.dimension = 'all'
            and primary_judge_agreement.is_primary_judge
),

final as (
    select
        {{ release_id() }} as release_id,
        coalesce(registry.metric, unioned.metric) as metric,
        registry.display_order,
        unioned.value,
        intervals.ci_low,
        intervals.ci_high,
        registry.paper_value,
        unioned.value - registry.paper_value as difference_from_paper,
        case when unioned.value is null then undefined_reasons.undefined_reason end as undefined_reason
    from registry
    -- a computed metric the registry lacks keeps its row, for the registry test to find
    full outer join unioned
        on registry.metric = unioned.metric
    left join intervals
        on
            registry.metric = intervals.metric
            and registry.interval_source = intervals.interval_source
    left join undefined_reasons
        on registry.metric = undefined_reasons.metric
)

select * from final
