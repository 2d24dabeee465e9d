{#- Per criterion: the share of ranked models whose reply meets it, the clinician reference's
    verdict, and how often the judge's votes on it split. hardness_rank orders the criteria of
    a dimension from the lowest pass rate (ties: heavier first, then criterion_id). -#}
with

release as (
    select release_id from {{ ref('stg_release__manifest') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

tasks as (
    select * from {{ ref('stg_release__tasks') }}
),

dimensions as (
    select * from {{ ref('dimensions') }}
),

models as (
    -- the ranked models are int_models_judged's (like ranked with like)
    select * from {{ ref('int_models_judged') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

verdicts as (
    select * from {{ ref('int_verdicts_keyed') }}
),

verdict_roles as (
    -- by integer keys: each verdict with what the counts below ask of its reply
    select
        verdicts.criterion_key,
        verdicts.is_met,
        models.is_ranked,
        models.kind = 'clinician_reference' as is_reference,
        -- a vote pair: a non-empty reply with at least two judge labels; split when they disagree
        not verdicts.is_empty_reply and verdicts.n_labels >= 2 as is_vote_pair,
        verdicts.n_met > 0 and verdicts.n_met < verdicts.n_labels as is_split
    from verdicts
    inner join responses
        on verdicts.response_key = responses.response_key
    inner join models
        on responses.model_id = models.model_id
),

criterion_verdicts as (
    -- one pass over the verdicts for every count of a criterion
    select
        criterion_key,
        sum(case when is_ranked then 1 else 0 end) as n_models,
        sum(case when is_ranked and is_met then 1 else 0 end) as n_models_met,
        max(case when is_reference then (case when is_met then 1 else 0 end) end) as reference_met,
        sum(case when is_vote_pair then 1 else 0 end) as n_vote_pairs,
        sum(case when is_vote_pair and is_split then 1 else 0 end) as n_split_pairs
    from verdict_roles
    group by criterion_key
),

joined as (
    select
        criteria.criterion_id,
        criteria.task_id,
        tasks.subcategory,
        tasks.turn_type,
        criteria.dimension,
        dimensions.dimension_kind,
        criteria.weight,
        criteria.criterion_text,
        cast(coalesce(criterion_verdicts.n_models, 0) as {{ dbt.type_bigint() }}) as n_models,
        cast(coalesce(criterion_verdicts.n_models_met, 0) as {{ dbt.type_bigint() }}) as n_models_met,
        criterion_verdicts.reference_met = 1 as is_met_by_reference,
        cast(coalesce(criterion_verdicts.n_vote_pairs, 0) as {{ dbt.type_bigint() }}) as n_vote_pairs,
        cast(coalesce(criterion_verdicts.n_split_pairs, 0) as {{ dbt.type_bigint() }}) as n_split_pairs
    from criteria
    inner join tasks
        on criteria.task_id = tasks.task_id
    left join dimensions
        on criteria.dimension = dimensions.dimension_id
    left join criterion_verdicts
        on criteria.criterion_key = criterion_verdicts.criterion_key
),

rated as (
    select
        *,
        n_models_met / nullif(n_models, 0) as pass_rate,
        n_split_pairs / nullif(n_vote_pairs, 0) as split_vote_share
    from joined
),

final as (
    select
        release.release_id,
        rated.criterion_id,
        rated.task_id,
        rated.subcategory,
        rated.turn_type,
        rated.dimension,
        rated.dimension_kind,
        rated.weight,
        rated.criterion_text,
        rated.n_models,
        rated.n_models_met,
        rated.pass_rate,
        cast(row_number() over (
            partition by rated.dimension
            order by rated.pass_rate asc, rated.weight desc, rated.criterion_id asc
        ) as {{ dbt.type_bigint() }}) as hardness_rank,
        rated.is_met_by_reference,
        rated.n_vote_pairs,
        rated.n_split_pairs,
        rated.split_vote_share
    from rated
    cross join release
)

select * from final
