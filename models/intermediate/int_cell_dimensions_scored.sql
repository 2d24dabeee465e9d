{#- Per (reply, dimension): the weighted fraction of the dimension's criteria met. Tasks with
    no criterion in a dimension have no row for it. By the reply's surrogate key (the largest
    table after the labels): the models that need the reply's ids join them from stg_release__responses. -#}
with

verdicts as (
    select * from {{ ref('int_verdicts_keyed') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

-- grouped by an integer dimension key: a narrower hash table than one keyed by the name
criterion_dimensions as (
    select
        criterion_key,
        weight,
        dimension,
        dense_rank() over (order by dimension) as dimension_key
    from criteria
),

dimension_names as (
    select distinct
        dimension_key,
        dimension
    from criterion_dimensions
),

totals as (
    select
        verdicts.response_key,
        criterion_dimensions.dimension_key,
        count(*) as n_criteria,
        cast(sum(case when verdicts.is_met then 1 else 0 end) as {{ dbt.type_bigint() }}) as n_met,
        cast(sum(criterion_dimensions.weight) as {{ dbt.type_bigint() }}) as weight_total,
        cast(
            sum(case when verdicts.is_met then criterion_dimensions.weight else 0 end) as {{ dbt.type_bigint() }}
        ) as weight_met
    from verdicts
    inner join criterion_dimensions
        on verdicts.criterion_key = criterion_dimensions.criterion_key
    group by verdicts.response_key, criterion_dimensions.dimension_key
),

final as (
    select
        totals.response_key,
        dimension_names.dimension,
        totals.n_criteria,
        totals.n_met,
        totals.weight_total,
        totals.weight_met,
        totals.weight_met / totals.weight_total as score
    from totals
    inner join dimension_names
        on totals.dimension_key = dimension_names.dimension_key
)

select * from final
