{#- True when a text is null, empty or nothing but white space (space, tab, line feed, form
    feed, carriage return): an empty reply, which satisfies no criterion. Written without a
    regular expression or backslash, which engines read differently. DuckDB strips the leading
    white space (far cheaper than rewriting every reply); the default removes every
    white-space character. -#}

{% macro is_blank(text) -%}
    {{ return(adapter.dispatch('is_blank', 'distressbench')(text)) }}
{%- endmacro %}

{% macro white_space_characters() -%}
    concat(' ', chr(9), chr(10), chr(12), chr(13))
{%- endmacro %}

{% macro default__is_blank(text) -%}
    (translate(coalesce({{ text }}, ''), {{ white_space_characters() }}, '') = '')
{%- endmacro %}

{% macro duckdb__is_blank(text) -%}
    (ltrim(coalesce({{ text }}, ''), {{ white_space_characters() }}) = '')
{%- endmacro %}
