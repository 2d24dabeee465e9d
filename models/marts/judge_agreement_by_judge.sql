{#- Judge self-consistency within each judge (its own samples only), per judge_id x
    dimension and overall ('all'). With a single judge its rows equal judge_agreement's.
    Defined in int_judge_agreement_summarized. -#}
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

judges as (
    select distinct judge_id from judge_groups
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
        {{ judge_agreement_values('summarized') }}
    from judge_dimensions
    left join summarized
        on
            judge_dimensions.judge_id = summarized.judge_id
            and judge_dimensions.dimension = summarized.dimension
)

select * from final
