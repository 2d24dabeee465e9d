{#- Long form of a relation's columns (DuckDB's `unpivot ... into name statistic value value`,
    written portably): one row per input row and column of `columns`, with the `keep` columns,
    the column's name as `statistic` and its value, as a double, as `value`. -#}
{% macro unpivot_columns(relation, columns, keep=[]) -%}
    {%- for column in columns %}
    select
        {%- for kept in keep %}
        {{ kept }},
        {%- endfor %}
        '{{ column }}' as statistic,
        cast({{ column }} as {{ type_double() }}) as value
    from {{ relation }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}
