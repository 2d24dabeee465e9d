{#- The units of each judge's self-consistency (marts.judge_agreement_by_judge's 'all' rows),
    counted per judge, task and kind for its task bootstrap: the (reply, criterion) pairs of
    non-empty replies with at least two labels of that judge. One row per (judge_id,
    task_id, n_labels, n_met) with n_units pairs of that kind; int_bootstrap_resampled
    re-estimates each judge's alpha from them in every resample. -#}
with

judge_groups as (
    select * from {{ ref('int_judge_labels_aggregated') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

units as (
    select
        judge_groups.judge_id,
        judge_groups.criterion_key,
        judge_groups.n_labels,
        judge_groups.n_met
    from judge_groups
    where judge_groups.is_rubric_pair and not judge_groups.is_empty_reply and judge_groups.n_labels >= 2
),

final as (
    select
        units.judge_id,
        criteria.task_id,
        units.n_labels,
        units.n_met,
        cast(count(*) as {{ dbt.type_bigint() }}) as n_units
    from units
    inner join criteria
        on units.criterion_key = criteria.criterion_key
    group by units.judge_id, criteria.task_id, units.n_labels, units.n_met
)

select * from final
