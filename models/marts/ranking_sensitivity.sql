{#- How much the leaderboard depends on the judge: one row per label subset (each judge
    alone, sample_index null; each single judge sample). Coverage always; over the ranked
    models the subset labels completely (each judge's ranking over the models it labelled),
    the best and median model score under it, Kendall's tau-b between their scores under it
    and their published scores, and how many change rank among them (and the largest
    change), both rankings taken over those models alone. Nulls for a subset that labels no
    ranked model completely. tau-b = (concordant - discordant) / sqrt((P - ties in x)(P -
    ties in y)) over the P pairs of those models (a pair tied in both counts in both); null
    when the denominator is 0. -#}
with

subset_models as (
    select * from {{ ref('int_label_subsets_scored') }}
),

model_scores as (
    select * from {{ ref('model_scores') }}
),

subsets as (
    -- a subset's coverage over every pair of the release
    select
        judge_id,
        sample_index,
        sum(n_pairs) as n_pairs,
        sum(n_pairs_labelled) as n_pairs_labelled,
        not {{ dbt.bool_or('not is_complete') }} as is_complete
    from subset_models
    group by judge_id, sample_index
),

shared as (
    -- the ranked models a subset labels completely: their scores under it and published
    select
        subset_models.judge_id,
        subset_models.sample_index,
        subset_models.model_id,
        subset_models.score,
        model_scores.score as published_score
    from subset_models
    inner join model_scores
        on subset_models.model_id = model_scores.model_id
    where model_scores.is_ranked and subset_models.is_complete
),

ranked as (
    -- both rankings over those models alone (equal scores share a rank)
    select
        *,
        rank() over (partition by judge_id, sample_index order by score desc) as rank,
        rank() over (partition by judge_id, sample_index order by published_score desc) as published_rank
    from shared
),

score_summary as (
    select
        judge_id,
        sample_index,
        count(*) as n_models,
        {{ best_and_median_model_scores('score') }},
        sum(case when rank != published_rank then 1 else 0 end) as n_rank_changes,
        max(abs(rank - published_rank)) as max_rank_change
    from ranked
    group by judge_id, sample_index
),

model_pairs as (
    -- each pair of ranked models once: the sign of their difference under the subset and
    -- in the published scores (0 = tied)
    select
        first_model.judge_id,
        first_model.sample_index,
        sign(first_model.score - second_model.score) as subset_order,
        sign(first_model.published_score - second_model.published_score) as published_order
    from ranked as first_model
    inner join ranked as second_model
        on
            first_model.judge_id = second_model.judge_id
            and coalesce(first_model.sample_index, -1) = coalesce(second_model.sample_index, -1)
            and first_model.model_id < second_model.model_id
),

pair_counts as (
    select
        judge_id,
        sample_index,
        count(*) as n_model_pairs,
        sum(case when subset_order * published_order > 0 then 1 else 0 end) as n_concordant,
        sum(case when subset_order * published_order < 0 then 1 else 0 end) as n_discordant,
        sum(case when subset_order = 0 then 1 else 0 end) as n_tied_under_subset,
        sum(case when published_order = 0 then 1 else 0 end) as n_tied_published
    from model_pairs
    group by judge_id, sample_index
),

tau as (
    select
        judge_id,
        sample_index,
        case
            when (n_model_pairs - n_tied_under_subset) * (n_model_pairs - n_tied_published) > 0
                then cast(n_concordant - n_discordant as {{ type_double() }})
                    / sqrt(
                        cast(n_model_pairs - n_tied_under_subset as {{ type_double() }})
                        * (n_model_pairs - n_tied_published)
                    )
        end as kendall_tau_b
    from pair_counts
),

final as (
    select
        {{ release_id() }} as release_id,
        subsets.judge_id,
        subsets.sample_index,
        subsets.sample_index is null as is_judge_alone,
        cast(subsets.n_pairs as {{ dbt.type_bigint() }}) as n_pairs,
        cast(subsets.n_pairs_labelled as {{ dbt.type_bigint() }}) as n_pairs_labelled,
        cast(subsets.n_pairs_labelled as {{ type_double() }}) / subsets.n_pairs as coverage,
        subsets.is_complete,
        score_summary.n_models,
        score_summary.best_model_score,
        score_summary.median_model_score,
        tau.kendall_tau_b,
        cast(score_summary.n_rank_changes as {{ dbt.type_bigint() }}) as n_rank_changes,
        cast(score_summary.max_rank_change as {{ dbt.type_bigint() }}) as max_rank_change
    from subsets
    left join score_summary
        on
            subsets.judge_id = score_summary.judge_id
            and coalesce(subsets.sample_index, -1) = coalesce(score_summary.sample_index, -1)
    left join tau
        on
            subsets.judge_id = tau.judge_id
            and coalesce(subsets.sample_index, -1) = coalesce(tau.sample_index, -1)
)

select * from final
