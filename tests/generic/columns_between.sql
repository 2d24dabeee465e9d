{#- Fails for every value of `columns` outside [min_value, max_value] (nulls pass), one row per
    value with its column's name. One test for the columns of a model that share a range: a
    model's range checks are one query, and one node of the build, not one per column. -#}
{% test columns_between(model, columns, min_value, max_value) %}

{% for column in columns %}
    select
        {{ dbt.string_literal(column) }} as column_name,
        cast({{ column }} as {{ type_double() }}) as column_value
    from {{ model }}
    where {{ column }} < {{ min_value }} or {{ column }} > {{ max_value }}
    {% if not loop.last %}union all{% endif %}
{% endfor %}

{% endtest %}
