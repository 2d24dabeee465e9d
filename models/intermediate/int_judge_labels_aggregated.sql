{{ config(tags=['built_by_gate']) }}
{#- The one pass over the judge labels: one row per (response_id, criterion_id, judge_id) that
    has labels, keyed by the replies' and criteria's surrogate keys. It carries what the
    verdicts need (labels, labels met), which samples were labelled and met (bit s of the masks
    for sample_index s in 0..62; the masks are null for a group holding any other
    sample_index) and what the gate's label checks read (nulls, negative sample indexes,
    dangling ids, the criterion's task against the reply's). The release build runs this SQL
    in the gate, which checks its rows before dbt builds on them. -#}
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
    select
        response_id,
        response_key,
        min(task_id) as task_id
    from responses
    where response_id is not null
    group by response_id, response_key
),

criterion_index as (
    select
        criterion_id,
        criterion_key,
        min(task_id) as task_id
    from criteria
    where criterion_id is not null
    group by criterion_id, criterion_key
),

grouped as (
    select
        response_id,
        criterion_id,
        judge_id,
        count(*) as n_labels,
        cast(sum(case when is_met then 1 else 0 end) as {{ dbt.type_bigint() }}) as n_met,
        min(sample_index) as min_sample_index,
        max(sample_index) as max_sample_index,
        bit_or(
            case when sample_index between 0 and 62 then cast(power(2, sample_index) as {{ dbt.type_bigint() }}) end
        ) as any_sample_mask,
        bit_or(
            case
                when is_met and sample_index between 0 and 62
                    then cast(power(2, sample_index) as {{ dbt.type_bigint() }})
            end
        ) as any_met_sample_mask,
        count(*) - count(sample_index) as n_null_sample_index,
        count(*) - count(is_met) as n_null_met,
        cast(sum(case when sample_index < 0 then 1 else 0 end) as {{ dbt.type_bigint() }}) as n_negative_sample_index
    from judge_labels
    group by response_id, criterion_id, judge_id
),

final as (
    select
        response_index.response_key,
        criterion_index.criterion_key,
        grouped.judge_id,
        grouped.n_labels,
        grouped.n_met,
        case
            when grouped.min_sample_index >= 0 and grouped.max_sample_index <= 62 then grouped.any_sample_mask
        end as sample_mask,
        case
            when grouped.min_sample_index >= 0 and grouped.max_sample_index <= 62
                then coalesce(grouped.any_met_sample_mask, 0)
        end as met_sample_mask,
        grouped.n_null_sample_index,
        grouped.n_null_met,
        grouped.n_negative_sample_index,
        response_index.task_id = criterion_index.task_id as is_same_task,
        -- the ids of labels whose reply or criterion is not in the release (null otherwise)
        case when response_index.response_key is null then grouped.response_id end as unknown_response_id,
        case when criterion_index.criterion_key is null then grouped.criterion_id end as unknown_criterion_id
    from grouped
    left join response_index
        on grouped.response_id = response_index.response_id
    left join criterion_index
        on grouped.criterion_id = criterion_index.criterion_id
)

select * from final
