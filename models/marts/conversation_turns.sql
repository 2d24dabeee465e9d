{#- The conversation of every task, turn by turn: the published file holds the text it scores. -#}
with

release as (
    select release_id from {{ ref('stg_release__manifest') }}
),

turns as (
    select * from {{ ref('stg_release__turns') }}
),

final as (
    select
        release.release_id,
        turns.task_id,
        turns.turn_index,
        turns.role,
        turns.turn_text
    from turns
    cross join release
)

select * from final
