{#- The release folder dbt reads: DISTRESSBENCH_RELEASE, else the embedded synthetic default. -#}
{% macro release_dir() -%}
    {{ return(env_var('DISTRESSBENCH_RELEASE', var('default_release_dir'))) }}
{%- endmacro %}

{#- A string as an SQL literal, quotes (and on Spark backslashes) escaped. -#}
{% macro string_literal(text) -%}
    {{ return(adapter.dispatch('string_literal', 'distressbench')(text)) }}
{%- endmacro %}

{% macro default__string_literal(text) -%}
    '{{ text | replace("'", "''") }}'
{%- endmacro %}

{#- Spark reads a backslash in a literal as an escape and two adjacent literals as one. -#}
{% macro spark__string_literal(text) -%}
    '{{ text | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}

{#- Whether the release has the file of source table `table` (the optional red-team annex
    may be absent); true while parsing. DuckDB looks for the file; on Spark the release's
    tables are registered by register_release_sources (on-run-start), so it asks the catalog. -#}
{% macro release_has_table(table) -%}
    {%- if execute -%}
        {{ return(adapter.dispatch('release_has_table', 'distressbench')(table)) }}
    {%- else -%}
        {{ return(true) }}
    {%- endif -%}
{%- endmacro %}

{% macro default__release_has_table(table) -%}
    {%- set path = release_dir() ~ '/' ~ table ~ '.parquet' -%}
    {%- set found = run_query('select count(*) from glob(' ~ string_literal(path) ~ ')') -%}
    {{ return(found.columns[0].values()[0] > 0) }}
{%- endmacro %}

{% macro spark__release_has_table(table) -%}
    {%- set found = run_query('show tables in release like ' ~ string_literal(table)) -%}
    {{ return(found.rows | length > 0) }}
{%- endmacro %}

{#- on-run-start: make the release's files readable as source('release', t). DuckDB reads them
    in place (the sources' external_location); Spark registers each file the manifest lists as
    an external table `release_files.<t>` (`using parquet location '...'`: dropping it never
    deletes the file) and the source as the view `release.<t>` over it, with each row's
    `file_row_number` as DuckDB reads it. Every source is dropped first, so a table that an
    earlier build registered and this release lacks is never read. -#}
{% macro register_release_sources() -%}
    {{ return(adapter.dispatch('register_release_sources', 'distressbench')()) }}
{%- endmacro %}

{% macro default__register_release_sources() -%}
    select 1
{%- endmacro %}

{% macro spark__register_release_sources() -%}
    {%- if execute -%}
        {%- set folder = release_dir() -%}
        {%- do run_query('create schema if not exists release_files') -%}
        {%- do run_query('create schema if not exists release') -%}
        {%- set tables = [] -%}
        {%- for node in graph.sources.values() if node.source_name == 'release' -%}
            {%- do tables.append(node.name) -%}
            {%- do run_query('drop view if exists release.' ~ node.name) -%}
            {%- do run_query('drop table if exists release_files.' ~ node.name) -%}
        {%- endfor -%}
        {%- do run_query(
            'create table release_files.manifest using json options (multiLine true) location '
            ~ string_literal(folder ~ '/manifest.json')
        ) -%}
        {%- do run_query('create view release.manifest as select * from release_files.manifest') -%}
        {%- set listed = fromjson(run_query('select to_json(files) from release_files.manifest').columns[0].values()[0]) -%}
        {%- for table in tables if table != 'manifest' and (table ~ '.parquet') in listed -%}
            {%- do run_query(
                'create table release_files.' ~ table ~ ' using parquet location '
                ~ string_literal(folder ~ '/' ~ table ~ '.parquet')
            ) -%}
            {%- do run_query(
                'create view release.' ~ table ~ ' as select *, _metadata.row_index as file_row_number'
                ~ ' from release_files.' ~ table
            ) -%}
        {%- endfor -%}
    {%- endif -%}
    select 1
{%- endmacro %}
