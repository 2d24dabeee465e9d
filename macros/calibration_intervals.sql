{% macro calibration_intervals() -%}
    {#- The six interval columns of the judge calibration (agreement, kappa and F1, each
        ci_low and ci_high), pivoted from int_bootstrap_resampled's calibration_* rows of a
        group. -#}
    {%- for name in ['agreement', 'kappa', 'f1'] %}
    max(case when statistic = 'calibration_{{ name }}' then ci_low end) as {{ name }}_ci_low,
    max(case when statistic = 'calibration_{{ name }}' then ci_high end) as {{ name }}_ci_high
    {%- if not loop.last %},{% endif %}
    {%- endfor %}
{%- endmacro %}
