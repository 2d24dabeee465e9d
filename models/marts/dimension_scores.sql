{#- dimension score(model, d) = mean, over the tasks with at least one criterion in d, of the
    weighted fraction met within d; its interval is the joint task bootstrap's. -#}
with

models as (
    select * from {{ ref('stg_release__models') }}
),

dimensions as (
    select * from {{ ref('dimensions') }}
),

cell_dimensions as (
    select * from {{ ref('int_cell_dimensions_scored') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

intervals as (
    select
        model_id,
        dimension,
        ci_low,
        ci_high
    from bootstrap
    where statistic = 'dimension_score'
),

scored as (
    select
        responses.model_id,
        cell_dimensions.dimension,
        count(*) as n_tasks,
        {{ exact_mean('cell_dimensions.score') }} as score
    from cell_dimensions
    inner join responses
        on cell_dimensions.response_key = responses.response_key
    group by responses.model_id, cell_dimensions.dimension
),

final as (
    select
        {{ release_id() }} as release_id,
        scored.model_id,
        models.kind,
        scored.dimension,
        dimensions.dimension_kind,
        scored.n_tasks,
        scored.score,
        intervals.ci_low,
        intervals.ci_high
    from scored
    inner join models
        on scored.model_id = models.model_id
    inner join dimensions
        on scored.dimension = dimensions.dimension_id
    left join intervals
        on
            scored.model_id = intervals.model_id
            and scored.dimension = intervals.dimension
)

select * from final
