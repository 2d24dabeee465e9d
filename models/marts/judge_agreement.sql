{#- Judge self-consistency over all judges' labels together, per dimension and overall
    ('all'); every dimension has a row (zero pairs and null shares when it has no unit).
    Defined in int_judge_agreement_summarized. -#}
with

dimensions as (
    select * from {{ ref('dimensions') }}
),

summarized as (
    select * from {{ ref('int_judge_agreement_summarized') }}
    where is_all_judges
),

dimension_list as (
    {{ dimensions_and_all('dimensions') }}
),

final as (
    select
        {{ release_id() }} as release_id,
        dimension_list.dimension,
        dimension_list.display_order,
        {{ judge_agreement_values('summarized') }}
    from dimension_list
    left join summarized
        on dimension_list.dimension = summarized.dimension
)

select * from final
