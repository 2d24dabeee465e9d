{#- Lists of structs, for marts that carry a short ordered list in a column (e.g. the criteria a
    reply missed). The syntax differs between engines, so each goes through adapter.dispatch:
    the default is DuckDB's; another engine adds its own `<adapter>__` version here. -#}

{% macro struct_of(fields) -%}
    {#- A struct from (name, expression) pairs. -#}
    {{ return(adapter.dispatch('struct_of', 'distressbench')(fields)) }}
{%- endmacro %}

{% macro default__struct_of(fields) -%}
    struct_pack({% for name, expression in fields %}{{ name }} := {{ expression }}{{ ', ' if not loop.last }}{% endfor %})
{%- endmacro %}

{% macro ordered_array_agg(expression, order_by) -%}
    {#- The values of an expression over a group, as a list in the given order. -#}
    {{ return(adapter.dispatch('ordered_array_agg', 'distressbench')(expression, order_by)) }}
{%- endmacro %}

{% macro default__ordered_array_agg(expression, order_by) -%}
    array_agg({{ expression }} order by {{ order_by }})
{%- endmacro %}

{% macro empty_array(data_type) -%}
    {#- An empty list of the given element type. -#}
    {{ return(adapter.dispatch('empty_array', 'distressbench')(data_type)) }}
{%- endmacro %}

{% macro default__empty_array(data_type) -%}
    cast([] as {{ data_type }}[])
{%- endmacro %}
