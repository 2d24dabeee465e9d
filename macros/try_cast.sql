{#- cast(expression as type), null where the value does not convert (dbt.safe_cast is a plain
    cast on DuckDB). -#}
{% macro try_cast(expression, type) -%}
    {{ return(adapter.dispatch('try_cast', 'distressbench')(expression, type)) }}
{%- endmacro %}

{% macro default__try_cast(expression, type) -%}
    try_cast({{ expression }} as {{ type }})
{%- endmacro %}
