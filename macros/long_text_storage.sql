{#- How a table of long texts (the replies) is stored. DuckDB picks a string compression by
    sampling, and for the replies it picks one that is slower to write and larger than zstd
    (docs/benchmarks.md, "Kept, and why"). The setting is global to the database, so the
    model's pre-hook turns it on and its post-hook turns it off (the gate runs the same
    hooks). Strings are compressed as row groups are written: a small table left for the
    checkpoint keeps the default. Another engine needs nothing. -#}

{% macro long_text_storage(is_on) -%}
    {{ return(adapter.dispatch('long_text_storage', 'distressbench')(is_on)) }}
{%- endmacro %}

{% macro default__long_text_storage(is_on) -%}
{%- endmacro %}

{% macro duckdb__long_text_storage(is_on) -%}
    {%- if is_on -%} set force_compression = 'zstd' {%- else -%} reset force_compression {%- endif -%}
{%- endmacro %}
