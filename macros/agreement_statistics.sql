{% macro agreement_statistics(n, tp, fp, fn, tn) -%}
    {#- The judge against the clinicians' majority on n calibrated pairs (tp, fp, fn, tn with
        'met' the positive class), as five columns: agreement, Cohen's kappa (null when
        chance agreement is 1), precision, recall and f1. -#}
    {%- set agreement = '(' ~ tp ~ ' + ' ~ tn ~ ') / nullif(' ~ n ~ ', 0)' -%}
    {%- set judge_met = '(' ~ tp ~ ' + ' ~ fp ~ ') / nullif(' ~ n ~ ', 0)' -%}
    {%- set gold_met = '(' ~ tp ~ ' + ' ~ fn ~ ') / nullif(' ~ n ~ ', 0)' -%}
    {%- set chance = '(' ~ judge_met ~ ' * ' ~ gold_met ~ ' + (1 - ' ~ judge_met ~ ') * (1 - ' ~ gold_met ~ '))' -%}
    {{ agreement }} as agreement,
    ({{ agreement }} - {{ chance }}) / nullif(1 - {{ chance }}, 0) as kappa,
    {{ tp }} / nullif({{ tp }} + {{ fp }}, 0) as precision,
    {{ tp }} / nullif({{ tp }} + {{ fn }}, 0) as recall,
    2 * {{ tp }} / nullif(2 * {{ tp }} + {{ fp }} + {{ fn }}, 0) as f1
{%- endmacro %}
