{#- The leaderboard under a subset of the judge labels. Subsets: each judge alone
    (sample_index null: every sample of that judge) and each single (judge_id,
    sample_index), sample indices 0-62 read from the masks of int_judge_labels_aggregated.
    A subset's verdict on a pair is the contract's majority of its labels there (tie rule
    var('verdict_tie_rule'), an empty reply meets nothing); its coverage of a model is the
    share of the model's (reply, criterion of its task) pairs it labels. A subset scores each
    model whose every pair it labels (cell score = weighted share met, model score = mean
    cell score, summed exactly so that equal cell scores give equal model scores) and ranks
    those of kind 'model' (equal scores share a rank): each judge's ranking over the models
    it labelled. The other models get nulls. One row per subset x model. -#}
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

models as (
    select * from {{ ref('int_models_judged') }}
),

model_rubric_pairs as (
    select
        responses.model_id,
        count(*) as n_pairs
    from responses
    inner join criteria
        on responses.task_id = criteria.task_id
    group by responses.model_id
),

rubric_groups as (
    -- the label groups of a (reply, criterion of its task) pair (is_rubric_pair), by integer
    -- keys, with the reply's emptiness the one pass carries; the criteria give the weights,
    -- so the pairs themselves are never joined
    select
        judge_groups.judge_id,
        judge_groups.response_key,
        judge_groups.n_labels,
        judge_groups.n_met,
        judge_groups.sample_mask,
        judge_groups.met_sample_mask,
        judge_groups.is_empty_reply,
        criteria.weight
    from judge_groups
    inner join criteria
        on judge_groups.criterion_key = criteria.criterion_key
    where judge_groups.is_rubric_pair
),

label_patterns as (
    -- the pairs of a reply that one judge labelled alike: one row per (judge, reply, labels),
    -- a few per reply, so that the subsets below expand patterns rather than pairs
    select
        judge_id,
        response_key,
        is_empty_reply,
        n_labels,
        n_met,
        sample_mask,
        met_sample_mask,
        count(*) as n_pairs,
        sum(weight) as weight
    from rubric_groups
    group by judge_id, response_key, is_empty_reply, n_labels, n_met, sample_mask, met_sample_mask
),

model_patterns as (
    -- each pattern with its reply's model
    select
        label_patterns.*,
        responses.model_id
    from label_patterns
    inner join responses
        on label_patterns.response_key = responses.response_key
),

sample_numbers as (
    select cast(generated_number - 1 as {{ dbt.type_int() }}) as sample_index
    from ({{ dbt.generate_series(63) }}) as series
),

judge_masks as (
    select distinct
        judge_id,
        sample_mask
    from label_patterns
),

judge_samples as (
    select distinct
        judge_masks.judge_id,
        sample_numbers.sample_index
    from judge_masks
    inner join sample_numbers
        on {{ mask_has_sample('judge_masks.sample_mask', 'sample_numbers.sample_index') }}
),

judge_replies as (
    -- each judge alone, per reply: the majority of its labels on each pair it labelled
    select
        judge_id,
        model_id,
        response_key,
        sum(case when {{ is_majority_met('n_met', 'n_labels', 'is_empty_reply') }} then weight else 0 end)
            as met_weight,
        sum(weight) as total_weight
    from model_patterns
    group by judge_id, model_id, response_key
),

judge_mask_pairs as (
    -- the pairs of each model each judge labelled with each set of samples: a few rows, from
    -- which every subset's coverage follows without a pass per reply
    select
        judge_id,
        model_id,
        sample_mask,
        sum(n_pairs) as n_pairs_labelled
    from model_patterns
    group by judge_id, model_id, sample_mask
),

subset_coverage as (
    select
        judge_id,
        cast(null as {{ dbt.type_int() }}) as sample_index,
        model_id,
        sum(n_pairs_labelled) as n_pairs_labelled
    from judge_mask_pairs
    group by judge_id, model_id
    union all
    select
        judge_mask_pairs.judge_id,
        judge_samples.sample_index,
        judge_mask_pairs.model_id,
        sum(judge_mask_pairs.n_pairs_labelled) as n_pairs_labelled
    from judge_mask_pairs
    inner join judge_samples
        on
            judge_mask_pairs.judge_id = judge_samples.judge_id
            and {{ mask_has_sample('judge_mask_pairs.sample_mask', 'judge_samples.sample_index') }}
    group by judge_mask_pairs.judge_id, judge_samples.sample_index, judge_mask_pairs.model_id
),

subsets as (
    select distinct
        judge_id,
        sample_index
    from subset_coverage
),

complete_subsets as (
    -- the (subset, model) whose every pair the subset labels
    select
        subset_coverage.judge_id,
        subset_coverage.sample_index,
        subset_coverage.model_id
    from subset_coverage
    inner join model_rubric_pairs
        on subset_coverage.model_id = model_rubric_pairs.model_id
    where subset_coverage.n_pairs_labelled = model_rubric_pairs.n_pairs
),

complete_samples as (
    select
        judge_id,
        sample_index,
        model_id
    from complete_subsets
    where sample_index is not null
),

sample_met_weights as (
    -- a (judge, sample) subset's verdict on a pair of a model it labels completely is that
    -- sample's label: per reply, the weight of the pairs it met (patterns of no met pair give
    -- no row)
    select
        model_patterns.judge_id,
        complete_samples.sample_index,
        model_patterns.response_key,
        sum(model_patterns.weight) as met_weight
    from model_patterns
    inner join complete_samples
        on
            model_patterns.judge_id = complete_samples.judge_id
            and model_patterns.model_id = complete_samples.model_id
    where {{ is_majority_met(
        'case when ' ~ mask_has_sample('model_patterns.met_sample_mask', 'complete_samples.sample_index')
        ~ ' then 1 else 0 end',
        '1',
        'model_patterns.is_empty_reply'
    ) }}
    group by model_patterns.judge_id, complete_samples.sample_index, model_patterns.response_key
),

subset_replies as (
    -- one row per complete (subset, model) x reply. A sample that labels every pair of a model,
    -- each once, has a judge that labels them all, so a reply's total weight under it is the
    -- judge's
    select
        judge_replies.judge_id,
        complete_subsets.sample_index,
        judge_replies.model_id,
        judge_replies.met_weight,
        judge_replies.total_weight
    from judge_replies
    inner join complete_subsets
        on
            judge_replies.judge_id = complete_subsets.judge_id
            and judge_replies.model_id = complete_subsets.model_id
    where complete_subsets.sample_index is null
    union all
    select
        judge_replies.judge_id,
        complete_samples.sample_index,
        judge_replies.model_id,
        coalesce(sample_met_weights.met_weight, 0) as met_weight,
        judge_replies.total_weight
    from judge_replies
    inner join complete_samples
        on
            judge_replies.judge_id = complete_samples.judge_id
            and judge_replies.model_id = complete_samples.model_id
    left join sample_met_weights
        on
            judge_replies.judge_id = sample_met_weights.judge_id
            and complete_samples.sample_index = sample_met_weights.sample_index
            and judge_replies.response_key = sample_met_weights.response_key
),

subset_cells as (
    -- a reply is a cell (one per model and task): its cell score on a 2^-40 grid as a bigint
    select
        judge_id,
        sample_index,
        model_id,
        cast(
            round(
                cast(met_weight as {{ type_double() }})
                * 1099511627776 / total_weight
            ) as {{ dbt.type_bigint() }}
        ) as grid_score
    from subset_replies
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
    -- every subset x every model, with the share of the model's pairs the subset labels
    select
        subsets.judge_id,
        subsets.sample_index,
        coalesce(model_rubric_pairs.n_pairs, 0) as n_pairs,
        coalesce(subset_coverage.n_pairs_labelled, 0) as n_pairs_labelled,
        coalesce(subset_coverage.n_pairs_labelled = model_rubric_pairs.n_pairs, false) as is_complete,
        models.model_id,
        models.kind,
        models.is_ranked
    from subsets
    cross join models
    left join model_rubric_pairs
        on models.model_id = model_rubric_pairs.model_id
    left join subset_coverage
        on
            subsets.judge_id = subset_coverage.judge_id
            and coalesce(subsets.sample_index, -1) = coalesce(subset_coverage.sample_index, -1)
            and models.model_id = subset_coverage.model_id
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
        case when n_pairs > 0 then cast(n_pairs_labelled as {{ type_double() }}) / n_pairs end as coverage,
        is_complete,
        model_id,
        kind,
        is_ranked,
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
