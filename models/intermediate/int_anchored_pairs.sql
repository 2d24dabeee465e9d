{#- The calibrated pairs the anchored scores correct the judge with: each pair of
    int_calibration_pairs_matched with a majority label (ties dropped), with the criterion's
    weight and the weight totals its score is a share of: the reply's criteria (task_weight,
    int_cells_scored) and the reply's criteria in the pair's dimension (dimension_weight,
    int_cell_dimensions_scored). -#}
with

pairs as (
    select * from {{ ref('int_calibration_pairs_matched') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

cells as (
    select * from {{ ref('int_cells_scored') }}
),

cell_dimensions as (
    select * from {{ ref('int_cell_dimensions_scored') }}
),

labelled as (
    select * from pairs
    where not is_tie
),

final as (
    select
        labelled.response_id,
        labelled.criterion_id,
        labelled.model_id,
        labelled.task_id,
        labelled.dimension,
        criteria.weight,
        cells.weight_total as task_weight,
        cell_dimensions.weight_total as dimension_weight,
        labelled.is_judge_met,
        labelled.is_gold_met
    from labelled
    inner join criteria
        on labelled.criterion_id = criteria.criterion_id
    inner join cells
        on labelled.response_id = cells.response_id
    inner join cell_dimensions
        on
            cells.response_key = cell_dimensions.response_key
            and labelled.dimension = cell_dimensions.dimension
)

select * from final
