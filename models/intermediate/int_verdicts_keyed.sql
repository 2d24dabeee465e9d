{#- verdict(response, criterion): met when more than half of its judge labels are met.
    A tie reads as var('verdict_tie_rule'); an empty reply meets nothing. One row per reply x
    criterion of its task, by surrogate keys (int_verdicts_voted joins the ids back): the pairs
    that have labels, which are all of them in a release that keeps the contract (the gate
    refuses one that leaves a pair unlabelled; plain dbt runs
    assert_every_rubric_pair_has_a_verdict). Labels on a criterion of another task match no
    pair of the reply. Read from the one pass alone, which carries each group's reply
    emptiness: with one judge its rubric groups are the verdicts' rows, streamed through. -#}
with

-- read by both branches of rubric_votes through rubric_groups: streamed, not stored first
judge_labels as {{ not_materialized() }} (
    select * from {{ ref('int_judge_labels_aggregated') }}
),

-- the judges that labelled (a null judge_id counts as one): with one, each (reply, criterion
-- of its task) pair is one label group already, so its votes pass through as they are
judges as (
    select {{ count_judges('judge_id') }} as n_judges
    from judge_labels
),

rubric_groups as {{ not_materialized() }} (
    select
        judge_labels.response_key,
        judge_labels.criterion_key,
        judge_labels.is_empty_reply,
        judge_labels.n_labels,
        judge_labels.n_met,
        judges.n_judges
    from judge_labels
    cross join judges
    where judge_labels.is_rubric_pair
),

-- with several judges, every judge's votes on a pair summed (a reply's emptiness is the
-- same in each of its groups)
rubric_votes as (
    select
        response_key,
        criterion_key,
        is_empty_reply,
        n_labels,
        n_met
    from rubric_groups
    where n_judges = 1
    union all
    select
        response_key,
        criterion_key,
        is_empty_reply,
        cast(sum(n_labels) as {{ dbt.type_bigint() }}) as n_labels,
        cast(sum(n_met) as {{ dbt.type_bigint() }}) as n_met
    from rubric_groups
    where n_judges > 1
    group by response_key, criterion_key, is_empty_reply
),

final as (
    select
        response_key,
        criterion_key,
        is_empty_reply,
        n_labels,
        n_met,
        {{ is_majority_met('n_met', 'n_labels', 'is_empty_reply') }} as is_met
    from rubric_votes
)

select * from final
