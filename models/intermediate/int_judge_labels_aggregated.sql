{#- One pass over the judge labels, kept per judge: for every (reply, criterion, judge) that
    has labels, how many there are, how many say met, and which sample_index values were
    labelled (sample_mask) and met (met_sample_mask), bit s for sample s. A group holding a
    sample_index above 62 has null masks (a bigint holds bits 0-62 without the sign). -#}
with

judge_labels as (
    select * from {{ ref('stg_release__judge_labels') }}
),

aggregated as (
    select
        response_id,
        criterion_id,
        judge_id,
        count(*) as n_labels,
        sum(case when is_met then 1 else 0 end) as n_met,
        max(sample_index) as max_sample_index,
        bit_or(
            case when sample_index <= 62 then {{ sample_bit('sample_index') }} end
        ) as sample_mask,
        bit_or(
            case when sample_index <= 62 and is_met then {{ sample_bit('sample_index') }} else 0 end
        ) as met_sample_mask
    from judge_labels
    group by response_id, criterion_id, judge_id
),

final as (
    select
        response_id,
        criterion_id,
        judge_id,
        cast(n_labels as {{ dbt.type_bigint() }}) as n_labels,
        cast(n_met as {{ dbt.type_bigint() }}) as n_met,
        case when max_sample_index <= 62 then sample_mask end as sample_mask,
        case when max_sample_index <= 62 then met_sample_mask end as met_sample_mask
    from aggregated
)

select * from final
