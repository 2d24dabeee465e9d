{#- Views on DuckDB: dbt's view materialization, in fewer statements where the view is new.
    dbt creates every view under an intermediate name, renames it into place and drops a
    backup name, whether or not the view existed. The release build writes into a new file,
    where no model's view exists yet, so this creates a new view in place. A view that exists
    (plain `dbt build` into warehouse/dev.duckdb) is replaced as dbt does: the new one is
    created under the intermediate name and the old one is kept until the swap is committed.
    The tables' materialization (table.sql) does the same. -#}

{% materialization view, adapter='duckdb' %}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='view') -%}
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

    {% call statement('main') -%}
        {{ get_create_view_as_sql(build_relation, sql) }}
    {%- endcall %}

    {% if existing_relation is not none -%}
        {{ adapter.rename_relation(existing_relation, backup_relation) }}
        {{ adapter.rename_relation(build_relation, target_relation) }}
    {%- endif %}
    {% set should_revoke = should_revoke(existing_relation, full_refresh_mode=True) %}
    {% do apply_grants(target_relation, config.get('grants'), should_revoke=should_revoke) %}
    {% do persist_docs(target_relation, model) %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {{ adapter.commit() }}

    {% if existing_relation is not none -%}
        {{ adapter.drop_relation(backup_relation) }}
    {%- endif %}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
