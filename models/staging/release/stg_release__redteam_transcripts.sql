{#- The red-team annex is optional: a release without the file reads as an empty annex. -#}
{%- set annex_path = env_var('DISTRESSBENCH_RELEASE', var('default_release_dir')) ~ '/redteam_transcripts.parquet' -%}
{%- set has_annex = true -%}
{%- if execute -%}
    {%- set found = run_query("select count(*) from glob('" ~ annex_path | replace("'", "''") ~ "')") -%}
    {%- set has_annex = found.columns[0].values()[0] > 0 -%}
{%- endif -%}

with

{% if has_annex -%}
    source as (
        select * from {{ source('release', 'redteam_transcripts') }}
    ),
{%- else -%}
    source as (
        select
            cast(null as {{ dbt.type_bigint() }}) as file_row_number,
            cast(null as {{ dbt.type_string() }}) as transcript_id,
            cast(null as {{ dbt.type_int() }}) as turn_index,
            cast(null as {{ dbt.type_string() }}) as role,
            cast(null as {{ dbt.type_string() }}) as content,
            cast(null as {{ dbt.type_string() }}) as model_id
        where false
    ),
{%- endif %}

final as (
    select
        file_row_number,
        transcript_id,
        turn_index,
        role,
        content as turn_text,
        model_id
    from source
)

select * from final
