{#- The two configurable rules of the contract, read from vars and checked once here. -#}

{% macro verdict_tie_is_met() -%}
    {#- verdict_tie_rule: how a tie between met and unmet judge labels is read. -#}
    {%- set rule = var('verdict_tie_rule') -%}
    {%- if rule not in ('unmet', 'met') -%}
        {{ exceptions.raise_compiler_error("var verdict_tie_rule must be 'unmet' or 'met', got '" ~ rule ~ "'") }}
    {%- endif -%}
    {{ 'true' if rule == 'met' else 'false' }}
{%- endmacro %}

{% macro is_routing_failure(n_met, n_criteria) -%}
    {#- routing_failure_rule: 'none_met' (no routing criterion met) or 'not_all_met'. -#}
    {%- set rule = var('routing_failure_rule') -%}
    {%- if rule == 'none_met' -%}
        ({{ n_met }} = 0)
    {%- elif rule == 'not_all_met' -%}
        ({{ n_met }} < {{ n_criteria }})
    {%- else -%}
        {{ exceptions.raise_compiler_error("var routing_failure_rule must be 'none_met' or 'not_all_met', got '" ~ rule ~ "'") }}
    {%- endif -%}
{%- endmacro %}

{% macro median_of(expression) -%}
    {#- The median; for an even count, the mean of the two middle values. -#}
    {{ return(adapter.dispatch('median_of', 'distressbench')(expression)) }}
{%- endmacro %}

{% macro default__median_of(expression) -%}
    quantile_cont({{ expression }}, 0.5)
{%- endmacro %}

{% macro spark__median_of(expression) -%}
    percentile({{ expression }}, 0.5)
{%- endmacro %}
