{#- Per (reply, dimension): the weighted fraction of the dimension's criteria met. Tasks with
    no criterion in a dimension have no row for it. -#}
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

totals as (
    select
        verdicts.response_key,
        criteria.dimension,
        count(*) as n_criteria,
        cast(sum(case when verdicts.is_met then 1 else 0 end) as {{ dbt.type_bigint() }}) as n_met,
        cast(sum(criteria.weight) as {{ dbt.type_bigint() }}) as weight_total,
        cast(sum(case when verdicts.is_met then criteria.weight else 0 end) as {{ dbt.type_bigint() }}) as weight_met
    from verdicts
    inner join criteria
        on verdicts.criterion_key = criteria.criterion_key
    group by verdicts.response_key, criteria.dimension
),

final as (
    select
        responses.response_id,
        responses.model_id,
        responses.task_id,
        totals.dimension,
        totals.n_criteria,
        totals.n_met,
        totals.weight_total,
        totals.weight_met,
        totals.weight_met / totals.weight_total as score
    from totals
    inner join responses
        on totals.response_key = responses.response_key
)

select * from final
