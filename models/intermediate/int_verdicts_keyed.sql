{#- verdict(response, criterion): met when more than half of its judge labels are met.
    A tie reads as var('verdict_tie_rule'); an empty reply meets nothing. One row per reply x
    criterion of its task, stored by surrogate keys (int_verdicts_voted joins the ids back):
    the pairs that have labels, which are all of them in a release that keeps the contract
    (the gate refuses one that leaves a pair unlabelled; plain dbt runs
    assert_every_rubric_pair_has_a_verdict). Labels on a criterion of another task match no
    pair of the reply. -#}
with

judge_labels as (
    select * from {{ ref('int_judge_labels_aggregated') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

-- the judges that labelled (a null judge_id counts as one): with one, each (reply, criterion
-- of its task) pair is one label group already, so its votes pass through as they are
judges as (
    select {{ count_judges('judge_id') }} as n_judges
    from judge_labels
),

rubric_groups as (
    select
        judge_labels.response_key,
        judge_labels.criterion_key,
        judge_labels.n_labels,
        judge_labels.n_met,
        judges.n_judges
    from judge_labels
    cross join judges
    where judge_labels.is_rubric_pair
),

-- with several judges, every judge's votes on a pair summed: one group-by of the label
-- groups, which the one pass wrote in about reply order (so DuckDB aggregates it range by range)
rubric_votes as (
    select
        response_key,
        criterion_key,
        n_labels,
        n_met
    from rubric_groups
    where n_judges = 1
    union all
    select
        response_key,
        criterion_key,
        cast(sum(n_labels) as {{ dbt.type_bigint() }}) as n_labels,
        cast(sum(n_met) as {{ dbt.type_bigint() }}) as n_met
    from rubric_groups
    where n_judges > 1
    group by response_key, criterion_key
),

final as (
    select
        rubric_votes.response_key,
        rubric_votes.criterion_key,
        responses.is_empty as is_empty_reply,
        rubric_votes.n_labels,
        rubric_votes.n_met,
        {{ is_majority_met('rubric_votes.n_met', 'rubric_votes.n_labels', 'responses.is_empty') }} as is_met
    from rubric_votes
    inner join responses
        on rubric_votes.response_key = responses.response_key
)

select * from final
