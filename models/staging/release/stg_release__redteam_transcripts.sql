{#- The red-team annex is optional: a release without the file reads as an empty annex. -#}
{%- set has_annex = release_has_table('redteam_transcripts') -%}

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
