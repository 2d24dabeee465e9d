{#- The leaderboard under a subset of the judge labels. Subsets: each judge alone
    (sample_index null: every sample of that judge) and each single (judge_id,
    sample_index), sample indices 0-62 read from the masks of int_judge_labels_aggregated.
    A subset's verdict on a pair is the contract's majority of its labels there (tie rule
    var('verdict_tie_rule'), an empty reply meets nothing); its coverage is the share of
    (reply, criterion of its task) pairs it labels. Only a subset that labels every pair
    gets scores (cell score = weighted share met, model score = mean cell score, summed
    exactly so that equal cell scores give equal model scores) and ranks
    (among models of kind 'model', equal scores share a rank); the others get nulls.
    One row per subset x model, beside the published score and rank. -#}
with

responses as (
    select * from {{ ref('stg_release__responses') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

judge_groups as (
    select * from {{ ref('int_judge_labels_aggregated') }}
),

model_scores as (
    select * from {{ ref('model_scores') }}
),

rubric_pairs as (
    select
        responses.response_key,
        responses.model_id,
        responses.task_id,
        responses.is_empty as is_empty_reply,
        criteria.criterion_key,
        criteria.weight
    from responses
    inner join criteria
        on responses.task_id = criteria.task_id
),

n_rubric_pairs as (
    select count(*) as n_pairs from rubric_pairs
),

sample_numbers as (
    select cast(generated_number - 1 as {{ dbt.type_int() }}) as sample_index
    from ({{ dbt.generate_series(63) }}) as series
),

judge_samples as (
    select distinct
        judge_groups.judge_id,
        sample_numbers.sample_index
    from judge_groups
    inner join sample_numbers
        on {{ mask_has_sample('judge_groups.sample_mask', 'sample_numbers.sample_index') }}
),

subset_votes as (
    select
        judge_id,
        cast(null as {{ dbt.type_int() }}) as sample_index,
        response_key,
        criterion_key,
        n_labels,
        n_met
    from judge_groups
    union all
    select
        judge_groups.judge_id,
        judge_samples.sample_index,
        judge_groups.response_key,
        judge_groups.criterion_key,
        cast(1 as {{ dbt.type_bigint() }}) as n_labels,
        cast(
            case
                when {{ mask_has_sample('judge_groups.met_sample_mask', 'judge_samples.sample_index') }} then 1
                else 0
            end as {{ dbt.type_bigint() }}
        ) as n_met
    from judge_groups
    inner join judge_samples
        on
            judge_groups.judge_id = judge_samples.judge_id
            and {{ mask_has_sample('judge_groups.sample_mask', 'judge_samples.sample_index') }}
),

subset_verdicts as (
    select
        subset_votes.judge_id,
        subset_votes.sample_index,
        rubric_pairs.response_key,
        rubric_pairs.model_id,
        rubric_pairs.task_id,
        rubric_pairs.weight,
        {{ is_majority_met('subset_votes.n_met', 'subset_votes.n_labels', 'rubric_pairs.is_empty_reply') }} as is_met
    from subset_votes
    inner join rubric_pairs
        on
            subset_votes.response_key = rubric_pairs.response_key
            and subset_votes.criterion_key = rubric_pairs.criterion_key
),

subsets as (
    select
        subset_verdicts.judge_id,
        subset_verdicts.sample_index,
        count(*) as n_pairs_labelled,
        max(n_rubric_pairs.n_pairs) as n_pairs
    from subset_verdicts
    cross join n_rubric_pairs
    group by subset_verdicts.judge_id, subset_verdicts.sample_index
),

complete_subsets as (
    select
        judge_id,
        sample_index
    from subsets
    where n_pairs_labelled = n_pairs
),

subset_cells as (
    select
        subset_verdicts.judge_id,
        subset_verdicts.sample_index,
        subset_verdicts.model_id,
        subset_verdicts.task_id,
        cast(
            round(
                cast(
                    sum(case when subset_verdicts.is_met then subset_verdicts.weight else 0 end) as {{ type_double() }}
                )
                * 1099511627776 / sum(subset_verdicts.weight)
            ) as {{ dbt.type_bigint() }}
        ) as grid_score
    from subset_verdicts
    inner join complete_subsets
        on
            subset_verdicts.judge_id = complete_subsets.judge_id
            and coalesce(subset_verdicts.sample_index, -1) = coalesce(complete_subsets.sample_index, -1)
    group by
        subset_verdicts.judge_id,
        subset_verdicts.sample_index,
        subset_verdicts.model_id,
        subset_verdicts.task_id
),

subset_model_scores as (
    -- the mean of the cell scores, summed exactly: each cell score on a 2^-40 grid as a
    -- bigint, so that two models with the same cell scores get the same score bit for bit
    -- (a float sum depends on the order of its terms); within 2^-41 of the exact mean
    select
        judge_id,
        sample_index,
        model_id,
        cast(sum(grid_score) as {{ type_double() }}) / count(*) / 1099511627776 as score
    from subset_cells
    group by judge_id, sample_index, model_id
),

subset_models as (
    select
        subsets.judge_id,
        subsets.sample_index,
        subsets.n_pairs,
        subsets.n_pairs_labelled,
        subsets.n_pairs_labelled = subsets.n_pairs as is_complete,
        model_scores.model_id,
        model_scores.kind,
        model_scores.score as published_score,
        model_scores.rank as published_rank
    from subsets
    cross join model_scores
),

scored as (
    select
        subset_models.*,
        subset_model_scores.score
    from subset_models
    left join subset_model_scores
        on
            subset_models.judge_id = subset_model_scores.judge_id
            and coalesce(subset_models.sample_index, -1) = coalesce(subset_model_scores.sample_index, -1)
            and subset_models.model_id = subset_model_scores.model_id
),

final as (
    select
        judge_id,
        sample_index,
        cast(n_pairs as {{ dbt.type_bigint() }}) as n_pairs,
        cast(n_pairs_labelled as {{ dbt.type_bigint() }}) as n_pairs_labelled,
        cast(n_pairs_labelled as {{ type_double() }}) / n_pairs as coverage,
        is_complete,
        model_id,
        kind,
        kind = 'model' as is_ranked,
        published_score,
        published_rank,
        score,
        case
            when kind = 'model' and is_complete
                then rank() over (
                        partition by judge_id, sample_index, kind = 'model' and is_complete
                        order by score desc
                    )
        end as rank
    from scored
)

select * from final
