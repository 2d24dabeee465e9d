{#- The calibrated pairs: each calibrated (reply, criterion) that has a verdict, with the
    clinicians' majority label (none on a tie) beside the judge's verdict. The one definition
    that marts.judge_calibration, marts.judge_calibration_by_model and the calibration's
    bootstrap read. -#}
with

adjudicated as (
    select * from {{ ref('int_calibration_labels_adjudicated') }}
),

verdicts as (
    select * from {{ ref('int_verdicts_voted') }}
),

final as (
    select
        adjudicated.response_id,
        adjudicated.criterion_id,
        verdicts.model_id,
        verdicts.task_id,
        verdicts.dimension,
        adjudicated.is_tie,
        verdicts.is_met as is_judge_met,
        adjudicated.is_gold_met
    from adjudicated
    inner join verdicts
        on adjudicated.response_id = verdicts.response_id
            and adjudicated.criterion_id = verdicts.criterion_id
)

select * from final
