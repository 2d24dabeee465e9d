{#- Table A2: each model's judge-only score beside its score anchored to the clinicians, in
    the tables' model order (the clinician reference last). -#}
with

anchored_scores as (
    select * from {{ ref('model_anchored_scores') }}
),

model_order as (
    select * from {{ ref('rpt_model_order') }}
),

final as (
    select
        anchored_scores.release_id,
        model_order.row_group,
        anchored_scores.model_id,
        anchored_scores.display_name as label,
        anchored_scores.kind,
        anchored_scores.score,
        anchored_scores.ci_low,
        anchored_scores.ci_high,
        anchored_scores.n_clinician_pairs,
        anchored_scores.anchored_score,
        anchored_scores.anchored_ci_low,
        anchored_scores.anchored_ci_high,
        anchored_scores.anchored_minus_score,
        coalesce(anchored_scores.anchored_null_reason, '') as note,
        model_order.model_order as row_order
    from anchored_scores
    inner join model_order
        on anchored_scores.model_id = model_order.model_id
)

select * from final
