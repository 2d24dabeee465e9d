{#- Paper table T7: the judge's calibration, overall first, then per dimension. -#}
with

judge_calibration as (
    select * from {{ ref('judge_calibration') }}
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
        dimension_list.dimension_kind,
        judge_calibration.n,
        judge_calibration.n_ties_dropped,
        judge_calibration.n_true_positive,
        judge_calibration.n_false_positive,
        judge_calibration.n_false_negative,
        judge_calibration.n_true_negative,
        judge_calibration.agreement,
        judge_calibration.kappa,
        judge_calibration.precision,
        judge_calibration.recall,
        judge_calibration.f1,
        cast(
            row_number() over (order by judge_calibration.display_order, judge_calibration.dimension)
            as {{ dbt.type_bigint() }}
        ) as row_order
    from judge_calibration
    left join dimension_list
        on judge_calibration.dimension = dimension_list.dimension
)

select * from final
