{#- Tables on DuckDB: dbt-duckdb's table materialization, in fewer statements where the table
    is new. dbt-duckdb creates every table under an intermediate name, renames it into place
    and drops a backup name, whether or not the table existed: two statements per model
    besides the one that builds it (without them, a 1x rebuild's model nodes took 38% fewer
    profile samples; docs/benchmarks.md, the thirteenth round). The release build writes
    into a new file, where no model's table exists yet, so this creates a new table in
    place. A table that exists (plain `dbt build` into warehouse/dev.duckdb) is replaced as
    dbt-duckdb does: the new one is built under the intermediate name and the old one is
    kept until the swap is committed. Spark keeps dbt-spark's materialization. -#}

{% materialization table, adapter='duckdb', supported_languages=['sql', 'python'] %}
    {%- set language = model['language'] -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- if existing_relation is none -%}
        {%- set build_relation = target_relation -%}
    {%- else -%}
        {%- set build_relation = make_intermediate_relation(target_relation) -%}
        {%- set backup_relation = make_backup_relation(target_relation, existing_relation.type) -%}
        {#- left by an earlier run that failed between its statements -#}
        {{ drop_relation_if_exists(load_cached_relation(build_relation)) }}
        {{ drop_relation_if_exists(load_cached_relation(backup_relation)) }}
    {%- endif %}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {% call statement('main', language=language) -%}
        {{- create_table_as(False, build_relation, compiled_code, language) }}
    {%- endcall %}

    {% if existing_relation is not none -%}
        {{ adapter.rename_relation(existing_relation, backup_relation) }}
        {{ adapter.rename_relation(build_relation, target_relation) }}
    {%- endif %}
    {% do create_indexes(target_relation) %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {% set should_revoke = should_revoke(existing_relation, full_refresh_mode=True) %}
    {% do apply_grants(target_relation, config.get('grants'), should_revoke=should_revoke) %}
    {% do persist_docs(target_relation, model) %}
    {{ adapter.commit() }}

    {% if existing_relation is not none -%}
        {{ adapter.drop_relation(backup_relation) }}
    {%- endif %}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
