{#- Table J1: the judge against the clinicians (judge_calibration, with intervals and the floor)
    and against itself (judge_agreement), overall first, then per dimension. -#}
with

judge_calibration as (
    select * from {{ ref('judge_calibration') }}
),

judge_agreement as (
    select * from {{ ref('judge_agreement') }}
),

dimensions as (
    select * from {{ ref('dimensions') }}
),

dimension_list as (
    {{ dimensions_and_all('dimensions') }}
),

final as (
    select
        judge_calibration.release_id,
        dimension_list.row_group,
        judge_calibration.dimension,
        dimension_list.label,
        judge_calibration.n,
        judge_calibration.kappa,
        judge_calibration.kappa_ci_low,
        judge_calibration.kappa_ci_high,
        judge_calibration.kappa_floor,
        judge_calibration.min_pairs,
        judge_calibration.meets_calibration_floor,
        case when judge_calibration.meets_calibration_floor then 'yes' else 'no' end as meets_floor_label,
        judge_calibration.agreement,
        judge_calibration.agreement_ci_low,
        judge_calibration.agreement_ci_high,
        judge_calibration.f1,
        judge_calibration.f1_ci_low,
        judge_calibration.f1_ci_high,
        judge_agreement.n_pairs as n_consistency_pairs,
        judge_agreement.unanimous_share,
        judge_agreement.tie_share,
        judge_agreement.observed_agreement,
        judge_agreement.krippendorff_alpha,
        cast(
            row_number() over (order by judge_calibration.display_order, judge_calibration.dimension)
            as {{ dbt.type_bigint() }}
        ) as row_order
    from judge_calibration
    left join judge_agreement
        on judge_calibration.dimension = judge_agreement.dimension
    left join dimension_list
        on judge_calibration.dimension = dimension_list.dimension
)

select * from final
