{#- The units of the judge's self-consistency over all judges (marts.judge_agreement's 'all'
    row), counted per task and kind for its task bootstrap: the (reply, criterion) pairs of
    non-empty replies with at least two labels, whose labels over all judges are their
    verdict's votes. One row per (task_id, n_labels, n_met) with n_units pairs of that kind;
    int_bootstrap_resampled re-estimates judge_alpha from them in every resample. -#}
with

verdicts as (
    select * from {{ ref('int_verdicts_keyed') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

units as (
    select
        verdicts.criterion_key,
        verdicts.n_labels,
        verdicts.n_met
    from verdicts
    where not verdicts.is_empty_reply and verdicts.n_labels >= 2
),

final as (
    select
        criteria.task_id,
        units.n_labels,
        units.n_met,
        cast(count(*) as {{ dbt.type_bigint() }}) as n_units
    from units
    inner join criteria
        on units.criterion_key = criteria.criterion_key
    group by criteria.task_id, units.n_labels, units.n_met
)

select * from final
