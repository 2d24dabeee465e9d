{#- Paper table P: every headline metric with its label and group from the registry, beside the
    paper's value; a dimension's metrics carry its floor mark (rpt_dimension_columns) after the
    dimension's name; a metric the release leaves undefined says why (note). -#}
with

headline_metrics as (
    select * from {{ ref('headline_metrics') }}
),

registry as (
    select * from {{ ref('headline_metric_registry') }}
),

dimension_columns as (
    select * from {{ ref('rpt_dimension_columns') }}
),

final as (
    select
        headline_metrics.release_id,
        coalesce(registry.metric_group, 'other') as row_group,
        headline_metrics.metric,
        case
            when dimension_columns.dimension_id is null then coalesce(registry.label, headline_metrics.metric)
            else {{ dbt.replace('registry.label', 'dimension_columns.dimension_label', 'dimension_columns.label') }}
        end as label,
        headline_metrics.value,
        headline_metrics.ci_low,
        headline_metrics.ci_high,
        headline_metrics.paper_value,
        headline_metrics.difference_from_paper,
        coalesce(headline_metrics.undefined_reason, '') as note,
        cast(row_number() over (
            order by
                case when headline_metrics.display_order is null then 1 else 0 end,
                headline_metrics.display_order,
                headline_metrics.metric
        ) as {{ dbt.type_bigint() }}) as row_order
    from headline_metrics
    left join registry
        on headline_metrics.metric = registry.metric
    left join dimension_columns
        on
            registry.metric_group = 'dimension'
            and (
                headline_metrics.metric = 'best_' || dimension_columns.dimension_id || '_score'
                or headline_metrics.metric = 'median_' || dimension_columns.dimension_id || '_score'
            )
)

select * from final
