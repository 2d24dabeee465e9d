{#- verdict(response, criterion): met when more than half of its judge labels are met.
    A tie reads as var('verdict_tie_rule'); an empty reply meets nothing. -#}
with

responses as (
    select * from {{ ref('stg_release__responses') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

judge_labels as (
    select * from {{ ref('stg_release__judge_labels') }}
),

votes as (
    select
        response_id,
        criterion_id,
        count(*) as n_labels,
        count(*) filter (where is_met) as n_met
    from judge_labels
    group by response_id, criterion_id
),

rubric_pairs as (
    select
        responses.response_id,
        responses.model_id,
        responses.task_id,
        responses.is_empty as is_empty_reply,
        criteria.criterion_id,
        criteria.dimension,
        criteria.weight
    from responses
    inner join criteria
        on responses.task_id = criteria.task_id
),

voted as (
    select
        rubric_pairs.*,
        coalesce(votes.n_labels, 0) as n_labels,
        coalesce(votes.n_met, 0) as n_met
    from rubric_pairs
    left join votes
        on rubric_pairs.response_id = votes.response_id
            and rubric_pairs.criterion_id = votes.criterion_id
),

final as (
    select
        *,
        {{ is_majority_met('n_met', 'n_labels', 'is_empty_reply') }} as is_met
    from voted
)

select * from final
