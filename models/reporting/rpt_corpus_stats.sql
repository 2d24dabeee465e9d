{#- Paper table T1: the corpus statistics with section, item and statistic labels, in display
    order (row_order). -#}
with

corpus_stats as (
    select * from {{ ref('corpus_stats') }}
),

sections as (
    select * from {{ ref('corpus_sections') }}
),

statistics as (
    select * from {{ ref('corpus_statistics') }}
),

subcategories as (
    select * from {{ ref('subcategories') }}
),

dimensions as (
    select * from {{ ref('dimensions') }}
),

items as (
    select
        'tasks_by_subcategory' as section,
        subcategory_id as item,
        display_order as item_order,
        label as item_label
    from subcategories
    union all
    select
        'dimension' as section,
        dimension_id as item,
        display_order as item_order,
        label as item_label
    from dimensions
    union all
    select
        'tasks_by_turn_type' as section,
        'single' as item,
        1 as item_order,
        'Single-turn' as item_label
    union all
    select
        'tasks_by_turn_type' as section,
        'multi' as item,
        2 as item_order,
        'Multi-turn' as item_label
),

labelled as (
    select
        corpus_stats.release_id,
        corpus_stats.section,
        coalesce(sections.label, corpus_stats.section) as section_label,
        corpus_stats.item,
        coalesce(
            items.item_label,
            case
                when corpus_stats.section = 'weight_distribution' then 'Weight ' || corpus_stats.item
                when corpus_stats.item = 'all' then ''
                else corpus_stats.item
            end
        ) as item_label,
        corpus_stats.statistic,
        coalesce(statistics.label, corpus_stats.statistic) as statistic_label,
        case when corpus_stats.statistic like '%share' then 'share' else 'number' end as unit,
        corpus_stats.value,
        coalesce(sections.display_order, 99) as section_order,
        coalesce(
            items.item_order, {{ try_cast('corpus_stats.item', dbt.type_int()) }}, 0
        ) as item_order,
        coalesce(statistics.display_order, 99) as statistic_order
    from corpus_stats
    left join sections
        on corpus_stats.section = sections.section
    left join statistics
        on corpus_stats.statistic = statistics.statistic
    left join items
        on
            corpus_stats.section = items.section
            and corpus_stats.item = items.item
),

final as (
    select
        release_id,
        section,
        section_label,
        item,
        item_label,
        statistic,
        statistic_label,
        unit,
        value,
        cast(row_number() over (
            order by section_order, section, item_order, item, statistic_order, statistic
        ) as {{ dbt.type_bigint() }}) as row_order
    from labelled
)

select * from final
