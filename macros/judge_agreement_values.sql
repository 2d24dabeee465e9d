{#- The values of a judge_agreement row from int_judge_agreement_summarized (`summarized`,
    left-joined to the rows a mart reports): counts are 0 where a row has no unit, shares and
    alpha null. One list for judge_agreement and judge_agreement_by_judge. -#}
{% macro judge_agreement_values(summarized) %}
    coalesce({{ summarized }}.n_pairs, 0) as n_pairs,
    coalesce({{ summarized }}.n_labels, 0) as n_labels,
    coalesce({{ summarized }}.n_labels_met, 0) as n_labels_met,
    coalesce({{ summarized }}.n_unanimous, 0) as n_unanimous,
    coalesce({{ summarized }}.n_ties, 0) as n_ties,
    {{ summarized }}.unanimous_share,
    {{ summarized }}.tie_share,
    {{ summarized }}.observed_agreement,
    {{ summarized }}.krippendorff_alpha
{% endmacro %}
