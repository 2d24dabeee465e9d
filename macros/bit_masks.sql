{#- Bit masks in a bigint (bit p set for position p, 0 <= p <= 62; DuckDB refuses a shift
    beyond): the samples a judge's label group holds (int_judge_labels_aggregated, position =
    sample_index). Engine-specific, so dispatched. -#}

{% macro mask_bit(position) -%}
    {{ return(adapter.dispatch('mask_bit', 'distressbench')(position)) }}
{%- endmacro %}

{% macro default__mask_bit(position) -%}
    shiftleft(cast(1 as {{ dbt.type_bigint() }}), {{ position }})
{%- endmacro %}

{% macro duckdb__mask_bit(position) -%}
    (cast(1 as {{ dbt.type_bigint() }}) << {{ position }})
{%- endmacro %}

{% macro mask_has_bit(mask, position) -%}
    {#- true when bit `position` of mask is set (null when mask is null). -#}
    {{ return(adapter.dispatch('mask_has_bit', 'distressbench')(mask, position)) }}
{%- endmacro %}

{% macro default__mask_has_bit(mask, position) -%}
    ((shiftright({{ mask }}, {{ position }}) & 1) = 1)
{%- endmacro %}

{% macro duckdb__mask_has_bit(mask, position) -%}
    ((({{ mask }}) >> {{ position }}) & 1 = 1)
{%- endmacro %}

{% macro mask_bit_count(mask) -%}
    {#- The number of bits set in mask. -#}
    {{ return(adapter.dispatch('mask_bit_count', 'distressbench')(mask)) }}
{%- endmacro %}

{% macro default__mask_bit_count(mask) -%}
    bit_count({{ mask }})
{%- endmacro %}

{% macro duckdb__mask_bit_count(mask) -%}
    bit_count({{ mask }})
{%- endmacro %}
