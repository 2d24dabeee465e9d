{% macro best_and_median_model_scores(score, ranked=none) -%}
    {#- The best and the median of the ranked models' scores, as two aggregate columns
        best_model_score and median_model_score. score: the score expression; ranked: a
        condition picking the rows of ranked models (kind 'model'), or none when the rows
        are already those. -#}
    {%- set value = score if ranked is none else 'case when ' ~ ranked ~ ' then ' ~ score ~ ' end' -%}
    max({{ value }}) as best_model_score,
    {{ median_of(value) }} as median_model_score
{%- endmacro %}
