{#- Per (model, task): recognized = the task has a recognition criterion and the reply met every
    one; not routed = the task has a routing criterion and the reply failed it by
    var('routing_failure_rule'). Only recognized cells whose task can route are counted. -#}
with

cells as (
    select * from {{ ref('int_cells_scored') }}
),

cell_dimensions as (
    select * from {{ ref('int_cell_dimensions_scored') }}
),

recognition as (
    select * from cell_dimensions
    where dimension = 'recognition'
),

routing as (
    select * from cell_dimensions
    where dimension = 'routing'
),

flagged as (
    select
        cells.response_id,
        cells.response_key,
        cells.model_id,
        cells.kind,
        cells.is_ranked,
        cells.task_id,
        recognition.response_key is not null as has_recognition,
        routing.response_key is not null as has_routing,
        coalesce(recognition.n_met = recognition.n_criteria, false) as is_recognized,
        coalesce({{ is_routing_failure('routing.n_met', 'routing.n_criteria') }}, false) as is_routing_failure
    from cells
    left join recognition
        on cells.response_key = recognition.response_key
    left join routing
        on cells.response_key = routing.response_key
),

final as (
    select
        *,
        is_recognized and has_routing as is_counted,
        is_recognized and has_routing and is_routing_failure as is_recognized_not_routed
    from flagged
)

select * from final
