{#- The descriptions of the models this run built (their yml), written into the database as
    the comments of the relations and their columns, so that the published file documents
    itself (duckdb_tables() and duckdb_columns() show them). An on-run-end hook: on DuckDB
    one look-up of the columns and one transaction of comment statements for the whole run,
    where dbt's persist_docs takes two queries per model (docs/benchmarks.md, "Kept, and
    why"); on Spark dbt's own persist_docs writes them (dbt_project.yml) and this does
    nothing. -#}

{% macro comment_on_relations(results) -%}
    {{ return(adapter.dispatch('comment_on_relations', 'distressbench')(results)) }}
{%- endmacro %}

{% macro default__comment_on_relations(results) -%}
    {%- if execute -%}
        {%- set built = [] -%}
        {%- for result in results
            if result.node.resource_type == 'model' and result.status == 'success' and result.node.description -%}
            {%- do built.append(result.node) -%}
        {%- endfor -%}
        {%- if built -%}
            {%- set existing = [] -%}
            {%- for row in run_query(
                'select schema_name, table_name, column_name from duckdb_columns()'
                ~ ' where database_name = current_database()'
            ) -%}
                {%- do existing.append(row[0] ~ '.' ~ row[1] ~ '.' ~ row[2]) -%}
            {%- endfor -%}
            {%- set statements = [] -%}
            {%- for node in built -%}
                {%- set relation = api.Relation.create(
                    database=node.database, schema=node.schema, identifier=node.alias
                ) -%}
                {%- set kind = 'view' if node.config.materialized == 'view' else 'table' -%}
                {%- do statements.append(
                    'comment on ' ~ kind ~ ' ' ~ relation ~ ' is ' ~ string_literal(node.description)
                ) -%}
                {%- for column in node.columns.values()
                    if column.description and (node.schema ~ '.' ~ node.alias ~ '.' ~ column.name) in existing -%}
                    {%- do statements.append(
                        'comment on column ' ~ relation ~ '.' ~ adapter.quote(column.name)
                        ~ ' is ' ~ string_literal(column.description)
                    ) -%}
                {%- endfor -%}
            {%- endfor -%}
            {#- in one transaction: one commit instead of one per statement -#}
            {%- call statement('comment_on_relations', auto_begin=true) -%}
                {{ statements | join(';\n') }}
            {%- endcall -%}
            {%- do adapter.commit() -%}
        {%- endif -%}
    {%- endif -%}
    select 1
{%- endmacro %}

{% macro spark__comment_on_relations(results) -%}
    select 1
{%- endmacro %}
