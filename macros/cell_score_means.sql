{#- A mart of mean cell scores per group (a turn type, a subcategory): one row per model and
    group, plus one pooled row per group over all cells of models of kind 'model'; the body of
    turn_type_scores and subcategory_scores, which differ only in the group column. The means
    are exact_mean's: independent of row order and thread count. With interval_statistic, each
    row gets ci_low and ci_high from that statistic's rows of int_bootstrap_resampled (keyed by
    model_id, null for the pooled row, and a column named like the group column). -#}
{% macro cell_score_means(group_column, interval_statistic=none) %}
with

cells as (
    select * from {{ ref('int_cells_scored') }}
),

per_model as (
    select
        model_id,
        kind,
        false as is_pooled,
        {{ group_column }},
        count(distinct task_id) as n_tasks,
        count(*) as n_cells,
        {{ exact_mean('score') }} as score
    from cells
    group by model_id, kind, {{ group_column }}
),

pooled as (
    select
        cast(null as {{ dbt.type_string() }}) as model_id,
        cast(null as {{ dbt.type_string() }}) as kind,
        true as is_pooled,
        {{ group_column }},
        count(distinct task_id) as n_tasks,
        count(*) as n_cells,
        {{ exact_mean('score') }} as score
    from cells
    where is_ranked
    group by {{ group_column }}
),

unioned as (
    select * from per_model
    union all
    select * from pooled
),
{%- if interval_statistic is none %}

final as (
    select
        {{ release_id() }} as release_id,
        unioned.*
    from unioned
)
{%- else %}

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

intervals as (
    select
        model_id,
        {{ group_column }},
        ci_low,
        ci_high
    from bootstrap
    where statistic = '{{ interval_statistic }}'
),

final as (
    select
        {{ release_id() }} as release_id,
        unioned.*,
        intervals.ci_low,
        intervals.ci_high
    from unioned
    left join intervals
        on
            unioned.{{ group_column }} = intervals.{{ group_column }}
            and (
                unioned.model_id = intervals.model_id
                or (unioned.model_id is null and intervals.model_id is null)
            )
)
{%- endif %}

select * from final
{% endmacro %}
