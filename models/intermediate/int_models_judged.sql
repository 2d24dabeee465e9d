{#- Which models are ranked together: like with like. A model's judges are the judge_ids with
    labels on its rubric pairs. The ranking judges are the release's primary judge
    (int_primary_judge_selected) and every judge that labelled pairs of at least half of the
    models of kind 'model' that the primary judge labelled. A model of kind 'model' is ranked
    when the primary judge labelled its pairs and every judge of its pairs is a ranking judge;
    another is shown unranked with the reason. The clinician reference is never ranked (no
    reason: it stands beside the ranking). One row per model of the release. -#}
with

models as (
    select * from {{ ref('stg_release__models') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

judge_groups as (
    select * from {{ ref('int_judge_labels_aggregated') }}
),

primary_judge as (
    select * from {{ ref('int_primary_judge_selected') }}
),

reply_judges as (
    -- the one group-by over the label groups: each (reply, judge) with labels on a rubric pair
    select distinct
        response_key,
        judge_id
    from judge_groups
    where is_rubric_pair
),

model_judges as (
    select distinct
        responses.model_id,
        reply_judges.judge_id
    from reply_judges
    inner join responses
        on reply_judges.response_key = responses.response_key
),

primary_models as (
    -- the models of kind 'model' that the primary judge labelled
    select model_judges.model_id
    from model_judges
    inner join primary_judge
        on model_judges.judge_id = primary_judge.judge_id
    inner join models
        on model_judges.model_id = models.model_id
    where models.kind = 'model'
),

primary_model_count as (
    select count(*) as n_primary_models
    from primary_models
),

judge_reach as (
    -- per judge: how many of the primary judge's models it labelled
    select
        model_judges.judge_id,
        count(*) as n_primary_models_labelled
    from model_judges
    inner join primary_models
        on model_judges.model_id = primary_models.model_id
    group by model_judges.judge_id
),

ranking_judges as (
    -- the primary judge, and each judge that labelled at least half of its models
    select judge_reach.judge_id
    from judge_reach
    cross join primary_model_count
    left join primary_judge
        on judge_reach.judge_id = primary_judge.judge_id
    where
        primary_judge.judge_id is not null
        or 2 * judge_reach.n_primary_models_labelled >= primary_model_count.n_primary_models
),

ranking_judge_list as (
    select {{ sorted_string_agg('judge_id') }} as ranking_judge_ids
    from ranking_judges
),

judged as (
    select
        model_judges.model_id,
        {{ sorted_string_agg('model_judges.judge_id') }} as judge_ids,
        {{ sorted_string_agg('case when ranking_judges.judge_id is null then model_judges.judge_id end') }}
            as other_judge_ids,
        {{ dbt.bool_or('primary_judge.judge_id is not null') }} as has_primary_judge
    from model_judges
    left join ranking_judges
        on model_judges.judge_id = ranking_judges.judge_id
    left join primary_judge
        on model_judges.judge_id = primary_judge.judge_id
    group by model_judges.model_id
),

final as (
    select
        models.model_id,
        models.display_name,
        models.provider,
        models.kind,
        judged.judge_ids,
        coalesce(
            models.kind = 'model' and judged.has_primary_judge and judged.other_judge_ids is null, false
        ) as is_ranked,
        case
            when models.kind != 'model' then cast(null as {{ dbt.type_string() }})
            when judged.model_id is null then 'no judge labelled its replies'
            when not judged.has_primary_judge
                then 'judged by ' || judged.judge_ids || ', not by the primary judge of the release, '
                    || primary_judge.judge_id
            when judged.other_judge_ids is not null
                then 'judged also by ' || judged.other_judge_ids
                    || ', not a ranking judge of the release (' || ranking_judge_list.ranking_judge_ids || ')'
        end as unranked_reason
    from models
    left join judged
        on models.model_id = judged.model_id
    cross join ranking_judge_list
    left join primary_judge
        on true
)

select * from final
