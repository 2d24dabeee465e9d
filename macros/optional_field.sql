{#- A top-level field of a one-row JSON source that may be absent (an optional manifest key):
    its value as a string, null when the row has no such field. Reading the row as JSON
    means no column has to exist, so a manifest without the key compiles and runs. -#}
{% macro optional_field(relation, field) -%}
    {{ return(adapter.dispatch('optional_field', 'distressbench')(relation, field)) }}
{%- endmacro %}

{% macro default__optional_field(relation, field) -%}
    json_extract_string(to_json({{ relation }}), {{ string_literal('$.' ~ field) }})
{%- endmacro %}

{% macro spark__optional_field(relation, field) -%}
    get_json_object(to_json(struct(*)), {{ string_literal('$.' ~ field) }})
{%- endmacro %}
