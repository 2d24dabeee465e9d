{#- Per dimension of the taxonomy: the best and the median dimension score over the ranked
    models (int_models_judged; best ties go to the smallest model_id), with the clinician reference beside them. A
    dimension with no criterion in the release has n_tasks 0 and null scores. -#}
with

dimension_scores as (
    select * from {{ ref('dimension_scores') }}
),

dimensions as (
    select * from {{ ref('dimensions') }}
),

models_judged as (
    select * from {{ ref('int_models_judged') }}
),

ranked_models as (
    -- the ranked models (like ranked with like)
    select dimension_scores.*
    from dimension_scores
    inner join models_judged
        on dimension_scores.model_id = models_judged.model_id
    where models_judged.is_ranked
),

summarised as (
    select
        dimension,
        count(*) as n_models,
        max(n_tasks) as n_tasks,
        {{ first_by('model_id', 'score desc, model_id asc') }} as best_model_id,
        {{ best_and_median_model_scores('score') }}
    from ranked_models
    group by dimension
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
        {{ release_id() }} as release_id,
        dimensions.dimension_id as dimension,
        dimensions.dimension_kind,
        dimensions.display_order,
        coalesce(summarised.n_tasks, 0) as n_tasks,
        coalesce(summarised.n_models, 0) as n_models,
        summarised.best_model_id,
        summarised.best_model_score as best_score,
        summarised.median_model_score as median_score,
        clinician_reference.clinician_reference_score
    from dimensions
    left join summarised
        on dimensions.dimension_id = summarised.dimension
    left join clinician_reference
        on dimensions.dimension_id = clinician_reference.dimension
)

select * from final
