{{ config(materialized='view') }}
{#- The verdicts (int_verdicts_keyed, where they are defined) with the ids of the reply,
    model, task and criterion joined back: a view inside the warehouse file. -#}
with

verdicts as (
    select * from {{ ref('int_verdicts_keyed') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

final as (
    select
        responses.response_id,
        responses.model_id,
        responses.task_id,
        verdicts.is_empty_reply,
        criteria.criterion_id,
        criteria.dimension,
        criteria.weight,
        verdicts.n_labels,
        verdicts.n_met,
        verdicts.is_met,
        verdicts.response_key,
        verdicts.criterion_key
    from verdicts
    inner join responses
        on verdicts.response_key = responses.response_key
    inner join criteria
        on verdicts.criterion_key = criteria.criterion_key
)

select * from final
