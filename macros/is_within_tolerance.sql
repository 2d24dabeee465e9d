{#- Two values that are both null, or differ by at most var('release_change_tolerance'). -#}
{% macro is_within_tolerance(a, b) -%}
    ((abs({{ a }} - {{ b }}) <= {{ var('release_change_tolerance') }}) or ({{ a }} is null and {{ b }} is null))
{%- endmacro %}
