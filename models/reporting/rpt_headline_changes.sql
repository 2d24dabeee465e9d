{#- Report table C2: each headline metric of this release or the previous one against the
    previous release, with its label and group from the registry, in display order. -#}
with

headline_changes as (
    select * from {{ ref('headline_changes') }}
),

registry as (
    select * from {{ ref('headline_metric_registry') }}
),

final as (
    select
        headline_changes.release_id,
        headline_changes.previous_release_id,
        coalesce(registry.metric_group, 'other') as row_group,
        headline_changes.metric,
        coalesce(registry.label, headline_changes.metric) as label,
        headline_changes.value,
        headline_changes.ci_low,
        headline_changes.ci_high,
        headline_changes.previous_value,
        headline_changes.previous_ci_low,
        headline_changes.previous_ci_high,
        headline_changes.difference,
        headline_changes.not_comparable_reason,
        cast(row_number() over (
            order by
                case when headline_changes.display_order is null then 1 else 0 end asc,
                headline_changes.display_order asc,
                headline_changes.metric asc
        ) as {{ dbt.type_bigint() }}) as row_order
    from headline_changes
    left join registry
        on headline_changes.metric = registry.metric
)

select * from final
