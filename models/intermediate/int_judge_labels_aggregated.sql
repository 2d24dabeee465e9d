{{ config(tags=['built_by_gate']) }}
{#- The one pass over the judge labels: one row per (response_id, criterion_id, judge_id) that
    has labels, keyed by the replies' and criteria's surrogate keys (null for a null id, -1 for
    an id not in the release: all such labels of a judge share one row). It carries whether
    the criterion is one of the reply's task's (is_rubric_pair), what the verdicts need
    (labels, labels met), which samples were labelled and met (bit s of the masks
    for sample_index s in 0..62; the masks are null for a group holding any other, or a null,
    sample_index) and what the gate's label checks count (nulls, negative sample indexes).
    Only what the verdicts, the judge-reliability marts and the gate read: every aggregate
    here costs time on every label. The release build runs this SQL in the gate, which checks
    its rows before dbt builds on them. -#}
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
    select distinct
        response_id,
        response_key,
        task_id
    from responses
    where response_id is not null
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
-- keys on the groups (at 100x, a third of the time of keying every label and grouping integers)
grouped as (
    select
        response_id,
        criterion_id,
        judge_id,
        count(*) as n_labels,
        cast(sum(case when is_met then 1 else 0 end) as {{ dbt.type_bigint() }}) as n_met,
        cast(sum(case when sample_index between 0 and 62 then 0 else 1 end) as {{ dbt.type_bigint() }})
            as n_outside_mask,
        bit_or(case when sample_index between 0 and 62 then {{ sample_bit('sample_index') }} end) as any_sample_mask,
        bit_or(
            case when is_met and sample_index between 0 and 62 then {{ sample_bit('sample_index') }} end
        ) as any_met_sample_mask,
        count(*) - count(sample_index) as n_null_sample_index,
        count(*) - count(is_met) as n_null_met,
        cast(sum(case when sample_index < 0 then 1 else 0 end) as {{ dbt.type_bigint() }}) as n_negative_sample_index
    from judge_labels
    group by response_id, criterion_id, judge_id
),

keyed as (
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
        grouped.n_labels,
        grouped.n_met,
        grouped.n_outside_mask,
        grouped.any_sample_mask,
        grouped.any_met_sample_mask,
        grouped.n_null_sample_index,
        grouped.n_null_met,
        grouped.n_negative_sample_index
    from grouped
    left join response_index
        on grouped.response_id = response_index.response_id
    left join criterion_index
        on grouped.criterion_id = criterion_index.criterion_id
),

pooled as (
    -- a group of two known ids is its own; the groups of unknown (-1) or null ids of a judge
    -- are pooled by key
    select * from keyed
    where response_key > 0 and criterion_key > 0
    union all
    select
        response_key,
        criterion_key,
        judge_id,
        false as is_rubric_pair,
        cast(sum(n_labels) as {{ dbt.type_bigint() }}) as n_labels,
        cast(sum(n_met) as {{ dbt.type_bigint() }}) as n_met,
        cast(sum(n_outside_mask) as {{ dbt.type_bigint() }}) as n_outside_mask,
        bit_or(any_sample_mask) as any_sample_mask,
        bit_or(any_met_sample_mask) as any_met_sample_mask,
        cast(sum(n_null_sample_index) as {{ dbt.type_bigint() }}) as n_null_sample_index,
        cast(sum(n_null_met) as {{ dbt.type_bigint() }}) as n_null_met,
        cast(sum(n_negative_sample_index) as {{ dbt.type_bigint() }}) as n_negative_sample_index
    from keyed
    where coalesce(response_key, -1) < 0 or coalesce(criterion_key, -1) < 0
    group by response_key, criterion_key, judge_id
),

final as (
    select
        response_key,
        criterion_key,
        judge_id,
        is_rubric_pair,
        n_labels,
        n_met,
        case when n_outside_mask = 0 then any_sample_mask end as sample_mask,
        case when n_outside_mask = 0 then coalesce(any_met_sample_mask, 0) end as met_sample_mask,
        n_null_sample_index,
        n_null_met,
        n_negative_sample_index
    from pooled
)

select * from final
