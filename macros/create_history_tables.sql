{#- The release history tables (var `history_tables`), created empty when absent, so that a
    fresh warehouse has them and the stg_history__* views always have something to read.
    `distressbench build` fills them before dbt runs (src/distressbench/publish/history.py). -#}
{% macro create_history_tables() %}
    {%- if execute -%}
        {%- set schema = api.Relation.create(database=target.get('database'), schema='history') -%}
        {%- do adapter.create_schema(schema) -%}
        {%- for table, columns in var('history_tables').items() -%}
            {%- set definition = [] -%}
            {%- for column, data_type in columns.items() -%}
                {%- do definition.append(adapter.quote(column) ~ ' ' ~ data_type) -%}
            {%- endfor -%}
            {%- do run_query(
                'create table if not exists ' ~ schema.include(identifier=false) ~ '.' ~ adapter.quote(table)
                ~ ' (' ~ definition | join(', ') ~ ')'
            ) -%}
        {%- endfor -%}
    {%- endif -%}
    select 1
{% endmacro %}
