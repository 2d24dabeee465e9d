{#- Mean cell score per group (a turn type, a subcategory): one row per model and group, plus
    one pooled row per group over all cells of models of kind 'model'. `cells` is a relation
    or CTE with the columns of int_cells_scored. The means are exact_mean's: independent of
    row order and thread count. -#}
{% macro cell_score_means(cells, group_column) %}
    select
        model_id,
        kind,
        false as is_pooled,
        {{ group_column }},
        count(distinct task_id) as n_tasks,
        count(*) as n_cells,
        {{ exact_mean('score') }} as score
    from {{ cells }}
    group by model_id, kind, {{ group_column }}

    union all

    select
        null::varchar as model_id,
        null::varchar as kind,
        true as is_pooled,
        {{ group_column }},
        count(distinct task_id) as n_tasks,
        count(*) as n_cells,
        {{ exact_mean('score') }} as score
    from {{ cells }}
    where is_ranked
    group by {{ group_column }}
{% endmacro %}
