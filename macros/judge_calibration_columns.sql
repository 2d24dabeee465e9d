{#- The columns the two judge calibration marts share, written once: the counts and ratios of
    the confusion (the relation `scored`, from agreement_statistics), their bootstrap intervals
    (the relation `resampled`), the calibration floor and whether it is met. -#}
{% macro judge_calibration_columns(scored, resampled) -%}
    {{ scored }}.n,
    {{ scored }}.n_ties_dropped,
    {{ scored }}.tp as n_true_positive,
    {{ scored }}.fp as n_false_positive,
    {{ scored }}.fn as n_false_negative,
    {{ scored }}.tn as n_true_negative,
    {{ scored }}.agreement,
    {{ scored }}.kappa,
    {{ scored }}.precision,
    {{ scored }}.recall,
    {{ scored }}.f1,
    {{ resampled }}.agreement_ci_low,
    {{ resampled }}.agreement_ci_high,
    {{ resampled }}.kappa_ci_low,
    {{ resampled }}.kappa_ci_high,
    {{ resampled }}.f1_ci_low,
    {{ resampled }}.f1_ci_high,
    cast({{ var('calibration_kappa_floor') }} as {{ type_double() }}) as kappa_floor,
    cast({{ var('calibration_min_pairs') }} as {{ dbt.type_bigint() }}) as min_pairs,
    {{ meets_calibration_floor(scored ~ '.kappa', scored ~ '.n') }} as meets_calibration_floor
{%- endmacro %}
