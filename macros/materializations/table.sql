{#- Tables on DuckDB: dbt-duckdb's table materialization, in fewer statements where the table
    is new. dbt-duckdb creates every table under an intermediate name, renames it into place
    and drops a backup name, whether or not the table existed: two statements per model
    besides the one that builds it (what that costs: docs/benchmarks.md, "Kept, and why").
    The release build writes
    into a new file, where no model's table exists yet, so this creates a new table in
    place; a table that exists (plain `dbt build` into warehouse/dev.duckdb) is replaced as
    dbt-duckdb does (swap_relations.sql). Spark keeps dbt-spark's materialization. -#}

{% materialization table, adapter='duckdb', supported_languages=['sql', 'python'] %}
    {%- set language = model['language'] -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set build_relation = relation_to_build(target_relation, existing_relation) -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}
    {% call statement('main', language=language) -%}
        {{- create_table_as(False, build_relation, compiled_code, language) }}
    {%- endcall %}
    {% do swap_into_place(existing_relation, build_relation, target_relation) %}
    {% do create_indexes(target_relation) %}
    {% do commit_model(existing_relation, target_relation) %}
    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
