{#- Table J4: the judge against the clinicians on each model's replies (judge_calibration_by_model,
    with intervals and the floor): models in the one model order (ranked models, then the
    clinician reference), each overall first, then per dimension. -#}
with

judge_calibration_by_model as (
    select * from {{ ref('judge_calibration_by_model') }}
),

model_order as (
    select * from {{ ref('rpt_model_order') }}
),

dimensions as (
    select * from {{ ref('dimensions') }}
),

dimension_list as (
    {{ dimensions_and_all('dimensions') }}
),

final as (
    select
        judge_calibration_by_model.release_id,
        model_order.row_group,
        judge_calibration_by_model.model_id,
        coalesce(model_order.display_name, judge_calibration_by_model.model_id) as model_label,
        judge_calibration_by_model.dimension,
        dimension_list.label,
        judge_calibration_by_model.n,
        judge_calibration_by_model.n_ties_dropped,
        judge_calibration_by_model.n_true_positive,
        judge_calibration_by_model.n_false_positive,
        judge_calibration_by_model.n_false_negative,
        judge_calibration_by_model.n_true_negative,
        judge_calibration_by_model.agreement,
        judge_calibration_by_model.agreement_ci_low,
        judge_calibration_by_model.agreement_ci_high,
        judge_calibration_by_model.kappa,
        judge_calibration_by_model.kappa_ci_low,
        judge_calibration_by_model.kappa_ci_high,
        judge_calibration_by_model.precision,
        judge_calibration_by_model.recall,
        judge_calibration_by_model.f1,
        judge_calibration_by_model.f1_ci_low,
        judge_calibration_by_model.f1_ci_high,
        judge_calibration_by_model.kappa_floor,
        judge_calibration_by_model.min_pairs,
        judge_calibration_by_model.meets_calibration_floor,
        case when judge_calibration_by_model.meets_calibration_floor then 'yes' else 'no' end as meets_floor_label,
        cast(row_number() over (
            order by
                model_order.model_order,
                judge_calibration_by_model.model_id,
                judge_calibration_by_model.display_order,
                judge_calibration_by_model.dimension
        ) as {{ dbt.type_bigint() }}) as row_order
    from judge_calibration_by_model
    left join model_order
        on judge_calibration_by_model.model_id = model_order.model_id
    left join dimension_list
        on judge_calibration_by_model.dimension = dimension_list.dimension
)

select * from final
