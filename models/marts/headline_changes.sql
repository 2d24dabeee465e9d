{#- Each headline metric of this release or the previous one (int_previous_release_selected):
    value, previous value, difference; no difference, and the reason, when the two releases
    differ in their task set (release_comparison). Empty when there is no previous release. -#}
with

current_metrics as (
    select * from {{ ref('headline_metrics') }}
),

previous_release as (
    select * from {{ ref('int_previous_release_selected') }}
),

comparison as (
    select * from {{ ref('release_comparison') }}
),

history_metrics as (
    select * from {{ ref('stg_history__headline_metrics') }}
),

previous_metrics as (
    select history_metrics.*
    from history_metrics
    inner join previous_release
        on history_metrics.release_id = previous_release.previous_release_id
),

paired as (
    select
        coalesce(current_metrics.metric, previous_metrics.metric) as metric,
        coalesce(current_metrics.display_order, previous_metrics.display_order) as display_order,
        current_metrics.value,
        previous_metrics.value as previous_value,
        current_metrics.ci_low,
        current_metrics.ci_high,
        previous_metrics.ci_low as previous_ci_low,
        previous_metrics.ci_high as previous_ci_high
    from current_metrics
    full outer join previous_metrics
        on current_metrics.metric = previous_metrics.metric
),

final as (
    select
        {{ release_id() }} as release_id,
        comparison.previous_release_id,
        paired.metric,
        paired.display_order,
        paired.value,
        paired.previous_value,
        case when comparison.is_comparable then paired.value - paired.previous_value end as difference,
        paired.ci_low,
        paired.ci_high,
        paired.previous_ci_low,
        paired.previous_ci_high,
        comparison.is_comparable,
        comparison.not_comparable_reason
    from paired
    cross join comparison
)

select * from final
