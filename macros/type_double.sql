{% macro type_double() -%}
    {#- 64-bit floating point. dbt.type_float() renders 'float', which DuckDB reads as a
        32-bit float: too coarse for shares compared to 1e-9. -#}
    {{ return(adapter.dispatch('type_double', 'distressbench')()) }}
{%- endmacro %}

{% macro default__type_double() -%}
    double
{%- endmacro %}
