{#- Spark: a seed's rows as literals, each escaped by string_literal, instead of dbt-spark's
    session bindings, which put a value in quotes without escaping it (a seed label with an
    apostrophe broke the insert). Overrides dbt-spark's spark__load_csv_rows. -#}
{% macro spark__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                (
                {%- for column_name in agate_table.column_names -%}
                    {%- set data_type = column_override.get(column_name, adapter.convert_type(agate_table, loop.index0)) -%}
                    {%- set value = row[loop.index0] -%}
                    cast({{ 'null' if value is none else string_literal(value | string) }} as {{ data_type }})
                    {{- ', ' if not loop.last }}
                {%- endfor -%}
                ){{ ',' if not loop.last }}
            {% endfor %}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- if loop.first -%}
            {%- do statements.append(sql) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(statements[0]) }}
{% endmacro %}
