{#- Per dimension: the best and the median dimension score over models of kind 'model'
    (best ties go to the smallest model_id), with the clinician reference beside them. -#}
with

dimension_scores as (
    select * from {{ ref('dimension_scores') }}
),

dimensions as (
    select * from {{ ref('dimensions') }}
),

ranked_models as (
    select * from dimension_scores
    where kind = 'model'
),

summarised as (
    select
        release_id,
        dimension,
        count(*) as n_models,
        {{ first_by('model_id', 'score desc, model_id asc') }} as best_model_id,
        {{ best_and_median_model_scores('score') }}
    from ranked_models
    group by release_id, dimension
),

clinician_reference as (
    select
        dimension,
        score as clinician_reference_score
    from dimension_scores
    where kind = 'clinician_reference'
),

final as (
    select
        summarised.release_id,
        summarised.dimension,
        dimensions.dimension_kind,
        dimensions.display_order,
        summarised.n_models,
        summarised.best_model_id,
        summarised.best_model_score as best_score,
        summarised.median_model_score as median_score,
        clinician_reference.clinician_reference_score
    from summarised
    inner join dimensions
        on summarised.dimension = dimensions.dimension_id
    left join clinician_reference
        on summarised.dimension = clinician_reference.dimension
)

select * from final
