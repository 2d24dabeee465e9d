{#- A check of the anchored scores' assumption that the calibrated pairs are a random share of
    each model's pairs within each dimension: per model and dimension, the share of its reply x
    criterion pairs that carry a clinician majority label, and the judge's met rate on the
    labelled pairs beside its rate on the others (close under random labelling). -#}
with

cells as (
    select * from {{ ref('int_cells_scored') }}
),

cell_dimensions as (
    select * from {{ ref('int_cell_dimensions_scored') }}
),

anchored_pairs as (
    select * from {{ ref('int_anchored_pairs') }}
),

all_pairs as (
    select
        cells.model_id,
        cell_dimensions.dimension,
        sum(cell_dimensions.n_criteria) as n_pairs,
        sum(cell_dimensions.n_met) as n_met
    from cell_dimensions
    inner join cells
        on cell_dimensions.response_key = cells.response_key
    group by cells.model_id, cell_dimensions.dimension
),

labelled_pairs as (
    select
        model_id,
        dimension,
        count(*) as n_labelled,
        sum(case when is_judge_met then 1 else 0 end) as n_labelled_met
    from anchored_pairs
    group by model_id, dimension
),

final as (
    select
        {{ release_id() }} as release_id,
        all_pairs.model_id,
        all_pairs.dimension,
        cast(all_pairs.n_pairs as {{ dbt.type_bigint() }}) as n_pairs,
        cast(coalesce(labelled_pairs.n_labelled, 0) as {{ dbt.type_bigint() }}) as n_labelled,
        coalesce(labelled_pairs.n_labelled, 0) / all_pairs.n_pairs as labelled_share,
        labelled_pairs.n_labelled_met / labelled_pairs.n_labelled as judge_met_rate_labelled,
        (all_pairs.n_met - coalesce(labelled_pairs.n_labelled_met, 0))
        / nullif(all_pairs.n_pairs - coalesce(labelled_pairs.n_labelled, 0), 0) as judge_met_rate_unlabelled
    from all_pairs
    left join labelled_pairs
        on
            all_pairs.model_id = labelled_pairs.model_id
            and all_pairs.dimension = labelled_pairs.dimension
)

select * from final
