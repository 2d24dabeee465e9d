{#- Bit masks over sample_index (bit s set for sample s, 0 <= s <= 62), for the per-judge
    label groups of int_judge_labels_aggregated. Engine-specific, so dispatched. -#}

{% macro sample_bit(sample_index) -%}
    {{ return(adapter.dispatch('sample_bit', 'distressbench')(sample_index)) }}
{%- endmacro %}

{% macro default__sample_bit(sample_index) -%}
    shiftleft(cast(1 as {{ dbt.type_bigint() }}), {{ sample_index }})
{%- endmacro %}

{% macro duckdb__sample_bit(sample_index) -%}
    (cast(1 as {{ dbt.type_bigint() }}) << {{ sample_index }})
{%- endmacro %}

{% macro mask_has_sample(mask, sample_index) -%}
    {#- true when bit sample_index of mask is set (null when mask is null). -#}
    {{ return(adapter.dispatch('mask_has_sample', 'distressbench')(mask, sample_index)) }}
{%- endmacro %}

{% macro default__mask_has_sample(mask, sample_index) -%}
    ((shiftright({{ mask }}, {{ sample_index }}) & 1) = 1)
{%- endmacro %}

{% macro duckdb__mask_has_sample(mask, sample_index) -%}
    ((({{ mask }}) >> {{ sample_index }}) & 1 = 1)
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
