{#- verdict(response, criterion): met when more than half of its judge labels are met.
    A tie reads as var('verdict_tie_rule'); an empty reply meets nothing. One row per reply x
    criterion of its task, stored by surrogate keys (int_verdicts_voted joins the ids back);
    labels on a criterion of another task match no pair of the reply. -#}
with

judge_labels as (
    select * from {{ ref('int_judge_labels_aggregated') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

rubric_pairs as (
    select
        responses.response_key,
        criteria.criterion_key,
        responses.is_empty as is_empty_reply
    from responses
    inner join criteria
        on responses.task_id = criteria.task_id
),

-- every rubric pair with no votes, and every judge's votes: one group-by gives each pair its
-- votes (zero without labels) and drops the labels that are no pair of their reply (cheaper
-- than a join of two tables of pair size)
pair_rows as (
    select
        response_key,
        criterion_key,
        1 as n_rubric_rows,
        is_empty_reply,
        0 as n_labels,
        0 as n_met
    from rubric_pairs

    union all

    select
        response_key,
        criterion_key,
        0 as n_rubric_rows,
        cast(null as {{ dbt.type_boolean() }}) as is_empty_reply,
        n_labels,
        n_met
    from judge_labels
),

voted as (
    select
        response_key,
        criterion_key,
        bool_or(is_empty_reply) as is_empty_reply,
        cast(sum(n_labels) as {{ dbt.type_bigint() }}) as n_labels,
        cast(sum(n_met) as {{ dbt.type_bigint() }}) as n_met
    from pair_rows
    group by response_key, criterion_key
    having sum(n_rubric_rows) > 0
),

final as (
    select
        response_key,
        criterion_key,
        is_empty_reply,
        n_labels,
        n_met,
        {{ is_majority_met('n_met', 'n_labels', 'is_empty_reply') }} as is_met
    from voted
)

select * from final
