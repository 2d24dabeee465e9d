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

scored as (
    select
        *,
        {{ agreement_statistics('n', 'tp', 'fp', 'fn', 'tn') }}
    from completed
),

final as (
    select
        {{ release_id() }} as release_id,
        scored.dimension,
        scored.display_order,
        {{ judge_calibration_columns('scored', 'resampled') }}
    from scored
    left join resampled
        on scored.dimension = resampled.dimension
)

select * from final
