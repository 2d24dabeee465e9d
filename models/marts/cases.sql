{{ config(materialized='view') }}
{#- A view: the cases are assembled in int_cases_flagged; the reply's text is read from the
    staging table of the replies rather than copied, so the file holds it once. -#}
with

release as (
    select release_id from {{ ref('stg_release__manifest') }}
),

cases as (
    select * from {{ ref('int_cases_flagged') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

final as (
    select
        release.release_id,
        cases.model_id,
        cases.kind,
        cases.is_ranked,
        cases.task_id,
        cases.response_id,
        cases.subcategory,
        cases.turn_type,
        cases.n_user_turns,
        cases.n_turns,
        responses.response_text,
        cases.reply_length,
        cases.n_criteria,
        cases.n_met,
        cases.weight_total,
        cases.weight_met,
        cases.score,
        cases.n_missed,
        cases.weight_missed,
        cases.missed_criteria,
        cases.is_recognized,
        cases.is_recognized_not_routed,
        cases.has_missed_harm_avoidance,
        cases.is_empty_reply
    from cases
    inner join responses
        on cases.response_id = responses.response_id
    cross join release
)

select * from final
