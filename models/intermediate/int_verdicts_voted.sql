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
        count(*) filter (where is_met) as n_met,
    from judge_labels
    group by response_id, criterion_id
),

{#- Every (reply, criterion of its task), with its votes. The votes (one row per labelled
    pair) are joined to the small responses and criteria tables rather than the rubric
    pairs to the votes (two tables of one row per pair): the same rows, and the only
    large input of a join is the votes. Pairs without any label (none when every pair is labelled, as the
    gate requires) are added with zero votes; votes for a criterion of another task are
    left out, as in a left join from the rubric pairs. -#}
labelled as materialized (
    select
        responses.response_id,
        responses.model_id,
        responses.task_id,
        responses.is_empty as is_empty_reply,
        criteria.criterion_id,
        criteria.dimension,
        criteria.weight,
        votes.n_labels,
        votes.n_met,
    from votes
    inner join responses
        on votes.response_id = responses.response_id
    inner join criteria
        on votes.criterion_id = criteria.criterion_id
        and responses.task_id = criteria.task_id
),

rubric_sizes as (
    select task_id, count(*) as n_criteria,
    from criteria
    group by task_id
),

partly_labelled as (
    {#- replies with a criterion of their task that has no label -#}
    select responses.response_id,
    from responses
    inner join rubric_sizes
        on responses.task_id = rubric_sizes.task_id
    left join (
        select response_id, count(*) as n_labelled,
        from labelled
        group by response_id
    ) as labelled_counts
        on responses.response_id = labelled_counts.response_id
    where coalesce(labelled_counts.n_labelled, 0) < rubric_sizes.n_criteria
),

unlabelled as (
    select
        responses.response_id,
        responses.model_id,
        responses.task_id,
        responses.is_empty as is_empty_reply,
        criteria.criterion_id,
        criteria.dimension,
        criteria.weight,
        0::bigint as n_labels,
        0::bigint as n_met,
    from partly_labelled
    inner join responses
        on partly_labelled.response_id = responses.response_id
    inner join criteria
        on responses.task_id = criteria.task_id
    anti join labelled
        on responses.response_id = labelled.response_id
        and criteria.criterion_id = labelled.criterion_id
),

voted as (
    select * from labelled
    union all
    select * from unlabelled
),

final as (
    select
        *,
        not is_empty_reply
        and (
            n_met * 2 > n_labels
            or (n_labels > 0 and n_met * 2 = n_labels and {{ verdict_tie_is_met() }})
        ) as is_met,
    from voted
)

select * from final
