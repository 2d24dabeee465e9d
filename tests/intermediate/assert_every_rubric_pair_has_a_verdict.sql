-- int_verdicts_keyed: every (reply, criterion of its task) pair has labels (the contract's
-- completeness), hence a verdict. One row per reply short of verdicts; its verdicts are
-- unique pairs of its task (their key test), so fewer than its rubric means a pair unlabelled.
with

verdicts as (
    select * from {{ ref('int_verdicts_keyed') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

rubric_sizes as (
    select
        task_id,
        count(*) as n_criteria
    from criteria
    group by task_id
),

reply_verdicts as (
    select
        response_key,
        count(*) as n_verdicts
    from verdicts
    group by response_key
),

final as (
    select
        responses.response_id,
        responses.task_id,
        rubric_sizes.n_criteria,
        coalesce(reply_verdicts.n_verdicts, 0) as n_verdicts
    from responses
    inner join rubric_sizes
        on responses.task_id = rubric_sizes.task_id
    left join reply_verdicts
        on responses.response_key = reply_verdicts.response_key
    where coalesce(reply_verdicts.n_verdicts, 0) < rubric_sizes.n_criteria
)

select * from final
