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

scored as (
    select
        *,
        {{ agreement_statistics('n', 'tp', 'fp', 'fn', 'tn') }}
    from completed
),

final as (
    select
        {{ release_id() }} as release_id,
        scored.model_id,
        scored.kind,
        scored.dimension,
        scored.display_order,
        {{ judge_calibration_columns('scored', 'resampled') }}
    from scored
    left join resampled
        on
            scored.model_id = resampled.model_id
            and scored.dimension = resampled.dimension
)

select * from final
