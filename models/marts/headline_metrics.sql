{#- The paper's headline numbers, one row per metric, beside the paper's values. -#}
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

paper_values as (
    select * from {{ ref('paper_values') }}
),

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

judge_calibration as (
    select * from {{ ref('judge_calibration') }}
),

judge_agreement as (
    select * from {{ ref('judge_agreement') }}
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
        'judge_alpha' as metric,
        krippendorff_alpha as value,
        cast(null as {{ type_double() }}) as ci_low,
        cast(null as {{ type_double() }}) as ci_high
    from judge_agreement
    where dimension = 'all'
),

intervals as (
    select
        statistic,
        ci_low,
        ci_high
    from bootstrap
    where model_id is null
    union all
    select
        metric as statistic,
        ci_low,
        ci_high
    from judge_metrics
),

model_metrics as (
    unpivot (
        select
            release_id,
            max(score) filter (where kind = 'model') as best_model_score,
            {{ median_of('score') }} filter (where kind = 'model') as median_model_score,
            max(score) filter (where kind = 'clinician_reference') as clinician_reference_score,
        from model_scores
        group by release_id
    )
    on best_model_score, median_model_score, clinician_reference_score
    into name metric value value
),

routing_metrics as (
    select
        release_id,
        'recognized_not_routed_rate' as metric,
        rate as value,
    from recognized_not_routed
    where is_pooled
),

turn_type_metrics as (
    unpivot (
        select
            release_id,
            max(score) filter (where turn_type = 'single') as single_turn_score,
            max(score) filter (where turn_type = 'multi') as multi_turn_score,
            max(score) filter (where turn_type = 'multi')
            - max(score) filter (where turn_type = 'single') as multi_minus_single,
        from turn_type_scores
        where is_pooled
        group by release_id
    )
    on single_turn_score, multi_turn_score, multi_minus_single
    into name metric value value
),

dimension_metrics as (
    select
        release_id,
        'best_' || dimension || '_score' as metric,
        best_score as value,
        100 + 2 * display_order as display_order,
    from dimension_summary
    union all
    select
        release_id,
        'median_' || dimension || '_score' as metric,
        median_score as value,
        101 + 2 * display_order as display_order,
    from dimension_summary
),

overall_metrics as (
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
),

overall_ordered as (
    select
        *,
        case metric
            when 'best_model_score' then 1
            when 'median_model_score' then 2
            when 'clinician_reference_score' then 3
            when 'recognized_not_routed_rate' then 4
            when 'single_turn_score' then 5
            when 'multi_turn_score' then 6
            when 'multi_minus_single' then 7
            when 'judge_kappa' then 8
            when 'judge_alpha' then 9
        end as display_order,
    from overall_metrics
),

unioned as (
    select * from overall_ordered
    union all
    select * from dimension_metrics
),

final as (
    select
        unioned.release_id,
        unioned.metric,
        unioned.display_order,
        unioned.value,
        intervals.ci_low,
        intervals.ci_high,
        paper_values.paper_value,
        unioned.value - paper_values.paper_value as difference_from_paper,
    from unioned
    left join intervals
        on unioned.metric = intervals.statistic
    left join paper_values
        on unioned.metric = paper_values.metric
)

select * from final
