{#- The judge's verdict against the clinicians' majority label (ties dropped) on the calibrated
    pairs (int_calibration_pairs_matched), per dimension and overall ('all'); 'met' is the
    positive class. -#}
with

dimensions as (
    select * from {{ ref('dimensions') }}
),

pairs as (
    select * from {{ ref('int_calibration_pairs_matched') }}
),

resampled as (
    select * from {{ ref('int_calibration_resampled') }}
),

confusion as (
    select
        coalesce(dimension, 'all') as dimension,
        count(*) filter (where not is_tie) as n,
        count(*) filter (where is_tie) as n_ties_dropped,
        count(*) filter (where not is_tie and is_judge_met and is_gold_met) as n_true_positive,
        count(*) filter (where not is_tie and is_judge_met and not is_gold_met) as n_false_positive,
        count(*) filter (where not is_tie and not is_judge_met and is_gold_met) as n_false_negative,
        count(*) filter (where not is_tie and not is_judge_met and not is_gold_met) as n_true_negative
    from pairs
    group by rollup(dimension)
),

dimension_list as (
    {{ dimensions_and_all('dimensions') }}
),

completed as (
    select
        dimension_list.dimension,
        dimension_list.display_order,
        coalesce(confusion.n, 0) as n,
        coalesce(confusion.n_ties_dropped, 0) as n_ties_dropped,
        coalesce(confusion.n_true_positive, 0) as tp,
        coalesce(confusion.n_false_positive, 0) as fp,
        coalesce(confusion.n_false_negative, 0) as fn,
        coalesce(confusion.n_true_negative, 0) as tn
    from dimension_list
    left join confusion
        on dimension_list.dimension = confusion.dimension
),

rates as (
    select
        *,
        (tp + tn) / nullif(n, 0) as agreement,
        (tp + fp) / nullif(n, 0) as judge_met_share,
        (tp + fn) / nullif(n, 0) as gold_met_share
    from completed
),

chance as (
    select
        *,
        judge_met_share * gold_met_share
        + (1 - judge_met_share) * (1 - gold_met_share) as chance_agreement
    from rates
),

final as (
    select
        {{ release_id() }} as release_id,
        chance.dimension,
        chance.display_order,
        chance.n,
        chance.n_ties_dropped,
        chance.tp as n_true_positive,
        chance.fp as n_false_positive,
        chance.fn as n_false_negative,
        chance.tn as n_true_negative,
        chance.agreement,
        -- Cohen's kappa; undefined (null) when chance agreement is 1
        (chance.agreement - chance.chance_agreement) / nullif(1 - chance.chance_agreement, 0) as kappa,
        chance.tp / nullif(chance.tp + chance.fp, 0) as precision,
        chance.tp / nullif(chance.tp + chance.fn, 0) as recall,
        2 * chance.tp / nullif(2 * chance.tp + chance.fp + chance.fn, 0) as f1,
        resampled.agreement_ci_low,
        resampled.agreement_ci_high,
        resampled.kappa_ci_low,
        resampled.kappa_ci_high,
        resampled.f1_ci_low,
        resampled.f1_ci_high,
        cast({{ var('calibration_kappa_floor') }} as {{ type_double() }}) as kappa_floor,
        cast({{ var('calibration_min_pairs') }} as {{ dbt.type_bigint() }}) as min_pairs,
        -- the judge is trusted on the dimension: kappa at least the floor, on enough pairs
        coalesce(
            (chance.agreement - chance.chance_agreement) / nullif(1 - chance.chance_agreement, 0)
            >= {{ var('calibration_kappa_floor') }},
            false
        )
        and chance.n >= {{ var('calibration_min_pairs') }} as meets_calibration_floor
    from chance
    left join resampled
        on chance.dimension = resampled.dimension
)

select * from final
