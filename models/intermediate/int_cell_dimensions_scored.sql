{#- Per (reply, dimension): the weighted fraction of the dimension's criteria met. Tasks with
    no criterion in a dimension have no row for it. -#}
with

verdicts as (
    select * from {{ ref('int_verdicts_voted') }}
),

totals as (
    select
        response_id,
        model_id,
        task_id,
        dimension,
        count(*) as n_criteria,
        count(*) filter (where is_met) as n_met,
        cast(sum(weight) as bigint) as weight_total,
        cast(sum(case when is_met then weight else 0 end) as bigint) as weight_met
    from verdicts
    group by response_id, model_id, task_id, dimension
),

final as (
    select
        *,
        weight_met / weight_total as score
    from totals
)

select * from final
