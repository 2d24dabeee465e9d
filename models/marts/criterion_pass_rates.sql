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
    select * from {{ ref('stg_release__models') }}
),

verdicts as (
    select * from {{ ref('int_verdicts_voted') }}
),

ranked_verdicts as (
    select
        verdicts.criterion_id,
        count(*) as n_models,
        cast(sum(case when verdicts.is_met then 1 else 0 end) as {{ dbt.type_bigint() }}) as n_models_met
    from verdicts
    inner join models
        on verdicts.model_id = models.model_id
    where models.is_ranked
    group by verdicts.criterion_id
),

reference_verdicts as (
    select
        verdicts.criterion_id,
        verdicts.is_met as is_met_by_reference
    from verdicts
    inner join models
        on verdicts.model_id = models.model_id
    where models.kind = 'clinician_reference'
),

-- a split vote: a pair of a non-empty reply with at least two judge labels that disagree
vote_pairs as (
    select
        criterion_id,
        n_met > 0 and n_met < n_labels as is_split
    from verdicts
    where not is_empty_reply and n_labels >= 2
),

vote_splits as (
    select
        criterion_id,
        count(*) as n_vote_pairs,
        cast(sum(case when is_split then 1 else 0 end) as {{ dbt.type_bigint() }}) as n_split_pairs
    from vote_pairs
    group by criterion_id
),

joined as (
    select
        criteria.criterion_id,
        criteria.task_id,
        tasks.subcategory,
        tasks.turn_type,
        criteria.dimension,
        dimensions.kind as dimension_kind,
        criteria.weight,
        criteria.criterion_text,
        coalesce(ranked_verdicts.n_models, 0) as n_models,
        coalesce(ranked_verdicts.n_models_met, 0) as n_models_met,
        reference_verdicts.is_met_by_reference,
        coalesce(vote_splits.n_vote_pairs, 0) as n_vote_pairs,
        coalesce(vote_splits.n_split_pairs, 0) as n_split_pairs
    from criteria
    inner join tasks
        on criteria.task_id = tasks.task_id
    left join dimensions
        on criteria.dimension = dimensions.dimension_id
    left join ranked_verdicts
        on criteria.criterion_id = ranked_verdicts.criterion_id
    left join reference_verdicts
        on criteria.criterion_id = reference_verdicts.criterion_id
    left join vote_splits
        on criteria.criterion_id = vote_splits.criterion_id
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
