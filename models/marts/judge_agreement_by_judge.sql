{#- Judge self-consistency within each judge (its own samples only), per judge_id x
    dimension and overall ('all'). With a single judge its rows equal judge_agreement's.
    Defined in int_judge_agreement_summarized. On the 'all' rows, alpha's task-bootstrap
    interval; the primary judge (int_primary_judge_selected) is marked, with why it is. -#}
with

dimensions as (
    select * from {{ ref('dimensions') }}
),

judge_groups as (
    select * from {{ ref('int_judge_labels_aggregated') }}
),

summarized as (
    select * from {{ ref('int_judge_agreement_summarized') }}
    where not is_all_judges
),

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

primary_judge as (
    select * from {{ ref('int_primary_judge_selected') }}
),

judges as (
    select distinct judge_id from judge_groups
),

alpha_intervals as (
    select
        judge_id,
        'all' as dimension,
        ci_low as alpha_ci_low,
        ci_high as alpha_ci_high
    from bootstrap
    where statistic = 'judge_alpha'
),

dimension_list as (
    {{ dimensions_and_all('dimensions') }}
),

judge_dimensions as (
    select
        judges.judge_id,
        dimension_list.dimension,
        dimension_list.display_order
    from judges
    cross join dimension_list
),

final as (
    select
        {{ release_id() }} as release_id,
        judge_dimensions.judge_id,
        judge_dimensions.dimension,
        judge_dimensions.display_order,
        {{ judge_agreement_values('summarized') }},
        alpha_intervals.alpha_ci_low,
        alpha_intervals.alpha_ci_high,
        primary_judge.judge_id is not null as is_primary_judge,
        primary_judge.selection_reason as primary_judge_reason
    from judge_dimensions
    left join summarized
        on
            judge_dimensions.judge_id = summarized.judge_id
            and judge_dimensions.dimension = summarized.dimension
    left join alpha_intervals
        on
            judge_dimensions.judge_id = alpha_intervals.judge_id
            and judge_dimensions.dimension = alpha_intervals.dimension
    left join primary_judge
        on judge_dimensions.judge_id = primary_judge.judge_id
)

select * from final
