{#- Table J3: the judge's self-consistency over all criteria, every judge's labels pooled
    (judge_agreement) first, then each judge alone (judge_agreement_by_judge) with alpha's
    interval, the primary judge (the headline judge_alpha's) marked with why it is. -#}
with

judge_agreement as (
    select * from {{ ref('judge_agreement') }}
),

judge_agreement_by_judge as (
    select * from {{ ref('judge_agreement_by_judge') }}
),

pooled_rows as (
    select
        release_id,
        'all' as row_group,
        cast(null as {{ dbt.type_string() }}) as judge_id,
        'All judges (pooled)' as label,
        n_pairs,
        n_labels,
        unanimous_share,
        tie_share,
        observed_agreement,
        krippendorff_alpha,
        cast(null as {{ type_double() }}) as alpha_ci_low,
        cast(null as {{ type_double() }}) as alpha_ci_high,
        cast(null as {{ dbt.type_string() }}) as primary_judge_reason,
        0 as block_order
    from judge_agreement
    where dimension = 'all'
),

judge_rows as (
    select
        release_id,
        'judge' as row_group,
        judge_id,
        judge_id as label,
        n_pairs,
        n_labels,
        unanimous_share,
        tie_share,
        observed_agreement,
        krippendorff_alpha,
        alpha_ci_low,
        alpha_ci_high,
        primary_judge_reason,
        1 as block_order
    from judge_agreement_by_judge
    where dimension = 'all'
),

unioned as (
    select * from pooled_rows
    union all
    select * from judge_rows
),

final as (
    select
        release_id,
        row_group,
        judge_id,
        label,
        n_pairs,
        n_labels,
        unanimous_share,
        tie_share,
        observed_agreement,
        krippendorff_alpha,
        alpha_ci_low,
        alpha_ci_high,
        primary_judge_reason,
        cast(row_number() over (order by block_order, judge_id) as {{ dbt.type_bigint() }}) as row_order
    from unioned
)

select * from final
