{#- The verdict of the contract for n_met met labels out of n_labels: met on a strict
    majority, a tie read by var('verdict_tie_rule'), never met by an empty reply or without
    labels. The one statement of the rule: int_verdicts_voted applies it to all labels, the
    judge-reliability models to subsets of them. -#}
{% macro is_majority_met(n_met, n_labels, is_empty_reply) -%}
    (
        not {{ is_empty_reply }}
        and (
            {{ n_met }} * 2 > {{ n_labels }}
            or ({{ n_labels }} > 0 and {{ n_met }} * 2 = {{ n_labels }} and {{ verdict_tie_is_met() }})
        )
    )
{%- endmacro %}

{#- How many judges labelled, over label groups (int_judge_labels_aggregated): a null
    judge_id is a judge of its own. With one judge, each (reply, criterion) pair's label group
    is its votes (int_verdicts_keyed) and each labelled pair one row (the gate's label_totals). -#}
{% macro count_judges(judge_id) -%}
    count(distinct {{ judge_id }}) + max(case when {{ judge_id }} is null then 1 else 0 end)
{%- endmacro %}
