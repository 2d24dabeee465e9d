{#- The one pass over the judge labels: one row per (response_id, criterion_id, judge_id) that
    has labels, keyed by the replies' and criteria's surrogate keys (null for a null id, -1 for
    an id not in the release; the groups of two known ids are unique by key, those of an
    unknown id are kept apart, not regrouped). It carries whether the criterion is one of the
    reply's task's (is_rubric_pair), what the verdicts need (labels, labels met), which samples
    were labelled and met (bit s of the masks for sample_index s in 0..62; the masks are null
    for a group holding any other, or a null, sample_index: the gate counts those labels in
    the raw file only when a group has no mask), the null met labels and whether the reply is
    empty (joined with its key, so that the verdicts and the judge-reliability models read
    this table without joining the replies again). Only what the verdicts, the
    judge-reliability marts and the gate read: every aggregate here costs time on every label. The release build runs this SQL in the gate, which checks its rows
    before dbt builds on them. -#}
with

judge_labels as (
    select * from {{ ref('stg_release__judge_labels') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

response_index as (
    -- one row per (id, key, task), as many as a release with a repeated response_id gives
    -- (the gate refuses it): the reply is empty when every row of it is
    select
        response_id,
        response_key,
        task_id,
        not {{ dbt.bool_or('not is_empty') }} as is_empty
    from responses
    where response_id is not null
    group by response_id, response_key, task_id
),

criterion_index as (
    select distinct
        criterion_id,
        criterion_key,
        task_id
    from criteria
    where criterion_id is not null
),

-- grouped by the ids first, then keyed: one hash group-by of the labels, and the joins to the
-- keys on the groups, not on every label
grouped as (
    select
        response_id,
        criterion_id,
        judge_id,
        count(*) as n_labels,
        cast(sum(case when is_met then 1 else 0 end) as {{ dbt.type_bigint() }}) as n_met,
        -- a sample_index outside 0..62, or a null one, sets every bit (-1): a negative mask,
        -- which final reads as no mask (one aggregate fewer than counting those labels)
        bit_or(
            case
                when sample_index between 0 and 62 then {{ sample_bit('sample_index') }}
                else cast(-1 as {{ dbt.type_bigint() }})
            end
        ) as any_sample_mask,
        bit_or(
            case
                when is_met and sample_index between 0 and 62 then {{ sample_bit('sample_index') }}
                else cast(0 as {{ dbt.type_bigint() }})
            end
        ) as any_met_sample_mask,
        count(*) - count(is_met) as n_null_met
    from judge_labels
    group by response_id, criterion_id, judge_id
),

keyed as (
    -- each group by its keys; the groups of an unknown id keep their own rows (regrouping
    -- them by key would read every group a second time)
    select
        case
            when grouped.response_id is not null then coalesce(response_index.response_key, -1)
        end as response_key,
        case
            when grouped.criterion_id is not null then coalesce(criterion_index.criterion_key, -1)
        end as criterion_key,
        grouped.judge_id,
        -- the criterion is one of the reply's task's: the pairs the verdicts and the judge
        -- marts read, marked here, where both ids are joined anyway
        coalesce(response_index.task_id = criterion_index.task_id, false) as is_rubric_pair,
        response_index.is_empty as is_empty_reply,
        grouped.n_labels,
        grouped.n_met,
        grouped.any_sample_mask,
        grouped.any_met_sample_mask,
        grouped.n_null_met
    from grouped
    left join response_index
        on grouped.response_id = response_index.response_id
    left join criterion_index
        on grouped.criterion_id = criterion_index.criterion_id
),

final as (
    select
        response_key,
        criterion_key,
        judge_id,
        is_rubric_pair,
        is_empty_reply,
        n_labels,
        n_met,
        case when any_sample_mask >= 0 then any_sample_mask end as sample_mask,
        case when any_sample_mask >= 0 then any_met_sample_mask end as met_sample_mask,
        n_null_met
    from keyed
)

select * from final
