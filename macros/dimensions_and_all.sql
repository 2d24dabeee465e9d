{#- The rows a per-dimension mart reports: each dimension of `dimensions` (a relation or
    CTE with the columns of the dimensions seed) and the overall row 'all', ordered first. -#}
{% macro dimensions_and_all(dimensions) %}
    select
        dimension_id as dimension,
        display_order
    from {{ dimensions }}
    union all
    select
        'all' as dimension,
        0 as display_order
{% endmacro %}
