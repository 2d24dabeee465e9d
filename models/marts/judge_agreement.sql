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
        coalesce(summarized.n_pairs, 0) as n_pairs,
        coalesce(summarized.n_labels, 0) as n_labels,
        coalesce(summarized.n_labels_met, 0) as n_labels_met,
        coalesce(summarized.n_unanimous, 0) as n_unanimous,
        coalesce(summarized.n_ties, 0) as n_ties,
        summarized.unanimous_share,
        summarized.tie_share,
        summarized.observed_agreement,
        summarized.krippendorff_alpha
    from dimension_list
    left join summarized
        on dimension_list.dimension = summarized.dimension
)

select * from final
