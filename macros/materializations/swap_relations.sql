{#- How the project's DuckDB materializations (table.sql, view.sql) put a model's relation in
    place. A new relation is built in place. One that exists is replaced as dbt does: the new
    one is built under the intermediate name (`relation_to_build`), swapped in within the
    model's transaction (`swap_into_place`), and the old one, renamed to the backup name, is
    dropped once the swap is committed (`commit_model`). The model's own statement stays in
    the materialization: dbt runs a Python model only from a statement called there. -#}

{% macro relation_to_build(target_relation, existing_relation) -%}
    {%- if existing_relation is none -%}
        {{ return(target_relation) }}
    {%- endif -%}
    {%- set build_relation = make_intermediate_relation(target_relation) -%}
    {#- left by an earlier run that failed between its statements -#}
    {{ drop_relation_if_exists(load_cached_relation(build_relation)) }}
    {{ drop_relation_if_exists(load_cached_relation(make_backup_relation(target_relation, existing_relation.type))) }}
    {{ return(build_relation) }}
{%- endmacro %}

{% macro swap_into_place(existing_relation, build_relation, target_relation) -%}
    {%- if existing_relation is not none -%}
        {{ adapter.rename_relation(existing_relation, make_backup_relation(target_relation, existing_relation.type)) }}
        {{ adapter.rename_relation(build_relation, target_relation) }}
    {%- endif -%}
{%- endmacro %}

{#- What follows the model's statement and the swap: post-hooks, grants, descriptions (when
    persist_docs is on), the commit, then the swapped-out relation's drop -#}
{% macro commit_model(existing_relation, target_relation) -%}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {% do apply_grants(target_relation, config.get('grants'), should_revoke=should_revoke(existing_relation, full_refresh_mode=True)) %}
    {% do persist_docs(target_relation, model) %}
    {{ adapter.commit() }}
    {%- if existing_relation is not none -%}
        {{ adapter.drop_relation(make_backup_relation(target_relation, existing_relation.type)) }}
    {%- endif -%}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
{%- endmacro %}
