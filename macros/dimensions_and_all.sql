{#- The rows a per-dimension mart reports: each dimension of `dimensions` (a relation or
    CTE with the columns of the dimensions seed) and the overall row 'all', ordered first,
    with the row group ('dimension' or 'all') and label the paper tables show for it. -#}
{% macro dimensions_and_all(dimensions) %}
    select
        dimension_id as dimension,
        display_order,
        'dimension' as row_group,
        label,
        dimension_kind
    from {{ dimensions }}
    union all
    select
        'all' as dimension,
        0 as display_order,
        'all' as row_group,
        'All criteria' as label,
        cast(null as {{ dbt.type_string() }}) as dimension_kind
{% endmacro %}
