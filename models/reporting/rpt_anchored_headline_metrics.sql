{#- Table A3: the headline scores anchored to the clinicians beside the judge's, labelled as in
    table P (the registry's labels, a dimension's floor mark after its name). -#}
with

anchored_headline as (
    select * from {{ ref('anchored_headline_metrics') }}
),

paper_comparison as (
    select * from {{ ref('rpt_paper_comparison') }}
),

final as (
    select
        anchored_headline.release_id,
        paper_comparison.row_group,
        anchored_headline.metric,
        paper_comparison.label,
        anchored_headline.value,
        anchored_headline.ci_low,
        anchored_headline.ci_high,
        anchored_headline.n_models,
        anchored_headline.n_clinician_pairs,
        anchored_headline.anchored_value,
        anchored_headline.anchored_ci_low,
        anchored_headline.anchored_ci_high,
        coalesce(anchored_headline.anchored_null_reason, '') as note,
        cast(row_number() over (
            order by anchored_headline.display_order, anchored_headline.metric
        ) as {{ dbt.type_bigint() }}) as row_order
    from anchored_headline
    inner join paper_comparison
        on anchored_headline.metric = paper_comparison.metric
)

select * from final
