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

votes as (
    select
        response_key,
        criterion_key,
        cast(sum(n_labels) as {{ dbt.type_bigint() }}) as n_labels,
        cast(sum(n_met) as {{ dbt.type_bigint() }}) as n_met
    from judge_labels
    group by response_key, criterion_key
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

voted as (
    select
        rubric_pairs.response_key,
        rubric_pairs.criterion_key,
        rubric_pairs.is_empty_reply,
        coalesce(votes.n_labels, 0) as n_labels,
        coalesce(votes.n_met, 0) as n_met
    from rubric_pairs
    left join votes
        on rubric_pairs.response_key = votes.response_key
        and rubric_pairs.criterion_key = votes.criterion_key
),

final as (
    select
        response_key,
        criterion_key,
        n_labels,
        n_met,
        not is_empty_reply
        and (
            n_met * 2 > n_labels
            or (n_labels > 0 and n_met * 2 = n_labels and {{ verdict_tie_is_met() }})
        ) as is_met
    from voted
)

select * from final
