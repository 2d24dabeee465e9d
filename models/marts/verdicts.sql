{{ config(materialized='view') }}
{#- A view: the verdicts are computed once, in int_verdicts_voted. -#}
with

verdicts as (
    select * from {{ ref('int_verdicts_voted') }}
),

final as (
    select
        {{ release_id() }} as release_id,
        verdicts.response_id,
        verdicts.model_id,
        verdicts.task_id,
        verdicts.criterion_id,
        verdicts.dimension,
        verdicts.weight,
        verdicts.n_labels,
        verdicts.n_met,
        verdicts.is_empty_reply,
        verdicts.is_met
    from verdicts
)

select * from final
