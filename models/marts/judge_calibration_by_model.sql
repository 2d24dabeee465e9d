{#- The judge's verdicts against the clinicians' majority label (ties dropped) on the calibrated
    pairs of each model's replies (int_calibration_pairs_matched), per model and dimension and
    per model overall ('all'), with the intervals and floor of marts.judge_calibration: every
    model of the release with every dimension and 'all' (zero pairs and null ratios where a
    model has none). 'met' is the positive class. -#}
with

dimensions as (
    select * from {{ ref('dimensions') }}
),

models as (
    select * from {{ ref('stg_release__models') }}
),

pairs as (
    select * from {{ ref('int_calibration_pairs_matched') }}
),

resampled as (
    select * from {{ ref('int_calibration_by_model_resampled') }}
),

pair_cells as (
    -- each pair once under its dimension and once under 'all'
    select
        model_id,
        dimension,
        is_tie,
        is_judge_met,
        is_gold_met
    from pairs
    union all
    select
        model_id,
        'all' as dimension,
        is_tie,
        is_judge_met,
        is_gold_met
    from pairs
),

confusion as (
    select
        model_id,
        dimension,
        count(*) filter (where not is_tie) as n,
        count(*) filter (where is_tie) as n_ties_dropped,
        count(*) filter (where not is_tie and is_judge_met and is_gold_met) as n_true_positive,
        count(*) filter (where not is_tie and is_judge_met and not is_gold_met) as n_false_positive,
        count(*) filter (where not is_tie and not is_judge_met and is_gold_met) as n_false_negative,
        count(*) filter (where not is_tie and not is_judge_met and not is_gold_met) as n_true_negative
    from pair_cells
    group by model_id, dimension
),

dimension_list as (
    {{ dimensions_and_all('dimensions') }}
),

completed as (
    select
        models.model_id,
        models.kind,
        dimension_list.dimension,
        dimension_list.display_order,
        coalesce(confusion.n, 0) as n,
        coalesce(confusion.n_ties_dropped, 0) as n_ties_dropped,
        coalesce(confusion.n_true_positive, 0) as tp,
        coalesce(confusion.n_false_positive, 0) as fp,
        coalesce(confusion.n_false_negative, 0) as fn,
        coalesce(confusion.n_true_negative, 0) as tn
    from models
    cross join dimension_list
    left join confusion
        on
            models.model_id = confusion.model_id
            and dimension_list.dimension = confusion.dimension
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

kappas as (
    select
        *,
        -- Cohen's kappa; undefined (null) when chance agreement is 1
        (agreement - chance_agreement) / nullif(1 - chance_agreement, 0) as kappa
    from chance
),

final as (
    select
        {{ release_id() }} as release_id,
        kappas.model_id,
        kappas.kind,
        kappas.dimension,
        kappas.display_order,
        kappas.n,
        kappas.n_ties_dropped,
        kappas.tp as n_true_positive,
        kappas.fp as n_false_positive,
        kappas.fn as n_false_negative,
        kappas.tn as n_true_negative,
        kappas.agreement,
        kappas.kappa,
        kappas.tp / nullif(kappas.tp + kappas.fp, 0) as precision,
        kappas.tp / nullif(kappas.tp + kappas.fn, 0) as recall,
        2 * kappas.tp / nullif(2 * kappas.tp + kappas.fp + kappas.fn, 0) as f1,
        resampled.agreement_ci_low,
        resampled.agreement_ci_high,
        resampled.kappa_ci_low,
        resampled.kappa_ci_high,
        resampled.f1_ci_low,
        resampled.f1_ci_high,
        cast({{ var('calibration_kappa_floor') }} as {{ type_double() }}) as kappa_floor,
        cast({{ var('calibration_min_pairs') }} as {{ dbt.type_bigint() }}) as min_pairs,
        -- the judge is trusted on the model's replies: kappa at least the floor, on enough pairs
        coalesce(kappas.kappa >= {{ var('calibration_kappa_floor') }}, false)
        and kappas.n >= {{ var('calibration_min_pairs') }} as meets_calibration_floor
    from kappas
    left join resampled
        on
            kappas.model_id = resampled.model_id
            and kappas.dimension = resampled.dimension
)

select * from final
