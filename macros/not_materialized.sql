{#- Written after `as` in a CTE that a model reads twice but should not store: DuckDB (1.4 and
    later) materializes every CTE referenced more than once, so a filter over tens of millions
    of rows read by two branches of a union would be copied in memory first. Engines that
    inline CTEs anyway get nothing. -#}
{% macro not_materialized() -%}
    {{ return(adapter.dispatch('not_materialized', 'distressbench')()) }}
{%- endmacro %}

{% macro default__not_materialized() -%}
{%- endmacro %}

{% macro duckdb__not_materialized() -%}
    not materialized
{%- endmacro %}
