{#- The mean of scores (fractions in [0, 1]) that depends on the values only, never on row
    order or thread count: each value is rounded once to 18 decimals (far below a double's
    precision at 1e-12) and the rounded values are summed exactly as decimal(38, 18), an
    integer sum that is associative; the one division is done in double. Identical inputs
    therefore give bitwise-identical means, so two tied models share a rank. Nulls are
    skipped, as avg() skips them. -#}
{% macro exact_mean(expression) -%}
    {{ return(adapter.dispatch('exact_mean')(expression)) }}
{%- endmacro %}

{% macro default__exact_mean(expression) -%}
    ({{ exact_sum(expression) }} / count({{ expression }}))
{%- endmacro %}

{#- The sum behind exact_mean, for terms below 1e20 in size: each rounded once to 18
    decimals and summed exactly, so the result depends on the values only. -#}
{% macro exact_sum(expression) -%}
    {{ return(adapter.dispatch('exact_sum')(expression)) }}
{%- endmacro %}

{% macro default__exact_sum(expression) -%}
    cast(sum(cast({{ expression }} as decimal(38, 18))) as double)
{%- endmacro %}
