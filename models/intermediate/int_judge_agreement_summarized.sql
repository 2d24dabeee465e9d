{#- Judge self-consistency. Units are the (reply, criterion) pairs of non-empty replies with
    at least two labels: over all judges together (is_all_judges), and within each judge
    (that judge's labels only). For a unit with n labels of which m are met:
    observed agreement (m(m-1) + (n-m)(n-m-1)) / (n(n-1)); unanimous when m = 0 or m = n;
    a tie when 2m = n. Krippendorff's alpha, nominal, every label one value:
    1 - (N - 1) * sum(m(n-m) / (n-1)) / (N0 * N1) over the units, N labels, N1 met,
    N0 = N - N1; null when N0 * N1 = 0. Per dimension and over all ('all'). -#}
with

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

judge_groups as (
    select * from {{ ref('int_judge_labels_aggregated') }}
),

verdicts as (
    select * from {{ ref('int_verdicts_keyed') }}
),

rubric_groups as (
    -- by integer keys only: the dimension is attached once the units are counted by kind
    select
        judge_groups.response_key,
        judge_groups.criterion_key,
        judge_groups.judge_id,
        judge_groups.n_labels,
        judge_groups.n_met
    from judge_groups
    where judge_groups.is_rubric_pair and not judge_groups.is_empty_reply
),

judges as (
    select {{ count_judges('judge_id') }} as n_judges
    from judge_groups
),

-- the terms depend on (n_labels, n_met) only: count the units of each kind first, so that
-- they are computed once per kind rather than once per unit
judge_unit_kinds as (
    select
        false as is_all_judges,
        judge_id,
        criterion_key,
        n_labels,
        n_met,
        count(*) as n_units
    from rubric_groups
    where n_labels >= 2
    group by judge_id, criterion_key, n_labels, n_met
),

all_judge_unit_kinds as (
    -- a pair's labels over all judges are its verdict's votes; with one judge, that judge's
    -- labels, so its kinds are counted once
    select
        true as is_all_judges,
        cast(null as {{ dbt.type_string() }}) as judge_id,
        judge_unit_kinds.criterion_key,
        judge_unit_kinds.n_labels,
        judge_unit_kinds.n_met,
        judge_unit_kinds.n_units
    from judge_unit_kinds
    cross join judges
    where judges.n_judges = 1
    union all
    select
        true as is_all_judges,
        cast(null as {{ dbt.type_string() }}) as judge_id,
        verdicts.criterion_key,
        verdicts.n_labels,
        verdicts.n_met,
        count(*) as n_units
    from verdicts
    cross join judges
    where judges.n_judges > 1 and not verdicts.is_empty_reply and verdicts.n_labels >= 2
    group by verdicts.criterion_key, verdicts.n_labels, verdicts.n_met
),

criterion_unit_kinds as (
    select * from all_judge_unit_kinds
    union all
    select * from judge_unit_kinds
),

unit_kinds as (
    select
        criterion_unit_kinds.is_all_judges,
        criterion_unit_kinds.judge_id,
        criteria.dimension,
        criterion_unit_kinds.n_labels,
        criterion_unit_kinds.n_met,
        sum(criterion_unit_kinds.n_units) as n_units
    from criterion_unit_kinds
    inner join criteria
        on criterion_unit_kinds.criterion_key = criteria.criterion_key
    group by
        criterion_unit_kinds.is_all_judges,
        criterion_unit_kinds.judge_id,
        criteria.dimension,
        criterion_unit_kinds.n_labels,
        criterion_unit_kinds.n_met
),

unit_terms as (
    select
        is_all_judges,
        judge_id,
        dimension,
        n_units,
        n_units * n_labels as n_labels,
        n_units * n_met as n_met,
        case when n_met = 0 or n_met = n_labels then n_units else 0 end as n_unanimous,
        case when n_met * 2 = n_labels then n_units else 0 end as n_ties,
        n_units * (
            cast(n_met * (n_met - 1) + (n_labels - n_met) * (n_labels - n_met - 1) as {{ type_double() }})
            / (n_labels * (n_labels - 1))
        ) as observed_agreement,
        n_units * (cast(n_met * (n_labels - n_met) as {{ type_double() }}) / (n_labels - 1)) as disagreement
    from unit_kinds
),

unit_terms_with_all as (
    -- every unit once under its dimension and once under 'all'
    select * from unit_terms
    union all
    select
        is_all_judges,
        judge_id,
        'all' as dimension,
        n_units,
        n_labels,
        n_met,
        n_unanimous,
        n_ties,
        observed_agreement,
        disagreement
    from unit_terms
),

summarized as (
    select
        is_all_judges,
        judge_id,
        dimension,
        sum(n_units) as n_pairs,
        sum(n_labels) as n_labels,
        sum(n_met) as n_labels_met,
        sum(n_unanimous) as n_unanimous,
        sum(n_ties) as n_ties,
        -- summed exactly, so that identical labels give identical shares whatever the row order
        {{ exact_sum('observed_agreement') }} as observed_agreement_sum,
        {{ exact_sum('disagreement') }} as disagreement_sum
    from unit_terms_with_all
    group by is_all_judges, judge_id, dimension
),

final as (
    select
        is_all_judges,
        judge_id,
        dimension,
        cast(n_pairs as {{ dbt.type_bigint() }}) as n_pairs,
        cast(n_labels as {{ dbt.type_bigint() }}) as n_labels,
        cast(n_labels_met as {{ dbt.type_bigint() }}) as n_labels_met,
        cast(n_unanimous as {{ dbt.type_bigint() }}) as n_unanimous,
        cast(n_ties as {{ dbt.type_bigint() }}) as n_ties,
        cast(n_unanimous as {{ type_double() }}) / n_pairs as unanimous_share,
        cast(n_ties as {{ type_double() }}) / n_pairs as tie_share,
        observed_agreement_sum / n_pairs as observed_agreement,
        case
            when (n_labels - n_labels_met) * n_labels_met > 0
                then 1 - (n_labels - 1) * disagreement_sum
                    / (cast(n_labels - n_labels_met as {{ type_double() }}) * n_labels_met)
        end as krippendorff_alpha
    from summarized
)

select * from final
