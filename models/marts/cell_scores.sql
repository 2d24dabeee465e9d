with

cells as (
    select * from {{ ref('int_cells_scored') }}
),

final as (
    select
        {{ release_id() }} as release_id,
        cells.model_id,
        cells.task_id,
        cells.response_id,
        cells.kind,
        cells.subcategory,
        cells.turn_type,
        cells.n_criteria,
        cells.n_met,
        cells.weight_total,
        cells.weight_met,
        cells.score
    from cells
)

select * from final
