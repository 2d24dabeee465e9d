{#- Views on DuckDB: dbt's view materialization, in fewer statements where the view is new,
    as the tables' (table.sql): a new view is created in place; a view that exists (plain
    `dbt build` into warehouse/dev.duckdb) is replaced as dbt does (swap_relations.sql). -#}

{% materialization view, adapter='duckdb' %}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='view') -%}
    {%- set build_relation = relation_to_build(target_relation, existing_relation) -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}
    {% call statement('main') -%}
        {{ get_create_view_as_sql(build_relation, sql) }}
    {%- endcall %}
    {% do swap_into_place(existing_relation, build_relation, target_relation) %}
    {% do commit_model(existing_relation, target_relation) %}
    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
