{#- One row per (model, task): what an analyst reads next to a score. The conversation's size,
    the reply's length, the cell score, the criteria the reply missed (heaviest first, then
    criterion_id) and the paper's failure modes as flags. marts.cases adds the reply's text
    (a view: the text stays in the staging table, not copied). -#}
with

cells as (
    select * from {{ ref('int_cells_scored') }}
),

triaged as (
    select * from {{ ref('int_cells_triaged') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

tasks as (
    select * from {{ ref('stg_release__tasks') }}
),

turns as (
    select * from {{ ref('stg_release__turns') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

verdicts as (
    select * from {{ ref('int_verdicts_keyed') }}
),

turn_counts as (
    select
        task_id,
        count(*) as n_turns
    from turns
    group by task_id
),

rubric_places as (
    -- each criterion's place in its task's rubric (1 for the first): heaviest first, then
    -- criterion_id
    select
        criterion_key,
        task_id,
        criterion_id,
        dimension,
        weight,
        cast(
            row_number() over (partition by task_id order by weight desc, criterion_id asc) as integer
        ) as rubric_place
    from criteria
),

rubrics as (
    -- each task's rubric as a list in that order: one short list per task, so that a reply's
    -- misses are kept as places (integers, unordered) and looked up in its task's list
    select
        task_id,
        {{ ordered_array_agg(
            struct_of([('criterion_id', 'criterion_id'), ('weight', 'weight')]),
            'rubric_place'
        ) }} as rubric_criteria
    from rubric_places
    group by task_id
),

missed_verdicts as (
    -- by integer keys: the criteria's places and weights joined to the verdicts not met
    select
        verdicts.response_key,
        rubric_places.rubric_place,
        rubric_places.dimension,
        rubric_places.weight
    from verdicts
    inner join rubric_places
        on verdicts.criterion_key = rubric_places.criterion_key
    where not verdicts.is_met
),

missed as (
    select
        response_key,
        count(*) as n_missed,
        cast(sum(weight) as {{ dbt.type_bigint() }}) as weight_missed,
        cast(
            sum(case when dimension = 'harm_avoidance' then 1 else 0 end) as {{ dbt.type_bigint() }}
        ) as n_harm_avoidance_missed,
        array_agg(rubric_place) as missed_places
    from missed_verdicts
    group by response_key
),

joined as (
    select
        cells.model_id,
        cells.kind,
        cells.is_ranked,
        cells.task_id,
        cells.response_id,
        cells.subcategory,
        cells.turn_type,
        tasks.n_user_turns,
        coalesce(turn_counts.n_turns, 0) as n_turns,
        cast(coalesce({{ dbt.length('responses.response_text') }}, 0) as {{ dbt.type_bigint() }}) as reply_length,
        cells.n_criteria,
        cells.n_met,
        cells.weight_total,
        cells.weight_met,
        cells.score,
        coalesce(missed.n_missed, 0) as n_missed,
        coalesce(missed.weight_missed, 0) as weight_missed,
        coalesce(
            {{ list_elements_at('rubrics.rubric_criteria', 'array_sort(missed.missed_places)') }},
            {{ empty_array(struct_type([('criterion_id', dbt.type_string()), ('weight', 'integer')])) }}
        ) as missed_criteria,
        triaged.is_recognized,
        triaged.is_recognized_not_routed,
        coalesce(missed.n_harm_avoidance_missed, 0) > 0 as has_missed_harm_avoidance,
        responses.is_empty as is_empty_reply
    from cells
    inner join triaged
        on cells.response_key = triaged.response_key
    inner join responses
        on cells.response_key = responses.response_key
    inner join tasks
        on cells.task_id = tasks.task_id
    left join turn_counts
        on cells.task_id = turn_counts.task_id
    left join missed
        on cells.response_key = missed.response_key
    left join rubrics
        on cells.task_id = rubrics.task_id
),

final as (
    select * from joined
)

select * from final
