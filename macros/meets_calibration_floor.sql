{#- The calibration floor, written once: the judge is trusted where Cohen's kappa against the
    clinicians is at least var('calibration_kappa_floor') on at least
    var('calibration_min_pairs') pairs (a null kappa misses it). -#}
{% macro meets_calibration_floor(kappa, n) -%}
    (coalesce({{ kappa }} >= {{ var('calibration_kappa_floor') }}, false) and {{ n }} >= {{ var('calibration_min_pairs') }})
{%- endmacro %}
