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

{% macro struct_type(fields) -%}
    {#- The type of a struct from (name, type) pairs. -#}
    {{ return(adapter.dispatch('struct_type', 'distressbench')(fields)) }}
{%- endmacro %}

{% macro default__struct_type(fields) -%}
    struct({% for name, data_type in fields %}{{ name }} {{ data_type }}{{ ', ' if not loop.last }}{% endfor %})
{%- endmacro %}

{% macro list_elements_at(list, places) -%}
    {#- The elements of a list at the given places (a list of integers, 1 for the first), in that order. -#}
    {{ return(adapter.dispatch('list_elements_at', 'distressbench')(list, places)) }}
{%- endmacro %}

{% macro default__list_elements_at(list, places) -%}
    list_select({{ list }}, {{ places }})
{%- endmacro %}

{% macro first_by(expression, order_by) -%}
    {#- The value of an expression on the first row of a group in the given order. -#}
    {{ return(adapter.dispatch('first_by', 'distressbench')(expression, order_by)) }}
{%- endmacro %}

{% macro default__first_by(expression, order_by) -%}
    first({{ expression }} order by {{ order_by }})
{%- endmacro %}

{% macro sorted_string_agg(expression) -%}
    {#- The values of a string expression over a group, sorted and joined by
        ', '; null when every value is null. -#}
    {{ return(adapter.dispatch('sorted_string_agg', 'distressbench')(expression)) }}
{%- endmacro %}

{% macro default__sorted_string_agg(expression) -%}
    string_agg({{ expression }}, ', ' order by {{ expression }})
{%- endmacro %}

{#- Spark: named_struct, array<...> types, and an ordered list as the values collected with
    their sort keys, sorted by a comparator built from `order_by` (columns, each optionally
    `asc` or `desc`; the keys are never null), then the keys dropped. -#}

{% macro spark__struct_of(fields) -%}
    named_struct({% for name, expression in fields %}'{{ name }}', {{ expression }}{{ ', ' if not loop.last }}{% endfor %})
{%- endmacro %}

{% macro spark__struct_type(fields) -%}
    struct<{% for name, data_type in fields %}{{ name }}: {{ data_type }}{{ ', ' if not loop.last }}{% endfor %}>
{%- endmacro %}

{% macro spark__empty_array(data_type) -%}
    cast(array() as array<{{ data_type }}>)
{%- endmacro %}

{% macro spark__list_elements_at(list, places) -%}
    transform({{ places }}, list_place -> element_at({{ list }}, list_place))
{%- endmacro %}

{% macro spark__ordered_array_agg(expression, order_by) -%}
    {%- set keys = [] -%}
    {%- for term in order_by.split(',') -%}
        {%- set words = term.strip().split() -%}
        {%- do keys.append((words[0], words | length > 1 and words[1] | lower == 'desc')) -%}
    {%- endfor -%}
    transform(
        array_sort(
            collect_list(named_struct(
                'value', {{ expression }}
                {%- for column, _ in keys %}, 'key_{{ loop.index }}', {{ column }}{% endfor %}
            )),
            (left_item, right_item) -> case
                {%- for _, is_descending in keys %}
                when left_item.key_{{ loop.index }} < right_item.key_{{ loop.index }} then {{ 1 if is_descending else -1 }}
                when left_item.key_{{ loop.index }} > right_item.key_{{ loop.index }} then {{ -1 if is_descending else 1 }}
                {%- endfor %}
                else 0
            end
        ),
        item -> item.value
    )
{%- endmacro %}

{% macro spark__first_by(expression, order_by) -%}
    element_at({{ spark__ordered_array_agg(expression, order_by) }}, 1)
{%- endmacro %}

{% macro spark__sorted_string_agg(expression) -%}
    nullif(array_join(array_sort(collect_list({{ expression }})), ', '), '')
{%- endmacro %}
