{#- Fails for every combination of the given columns that occurs more than once. -#}
{% test unique_combination_of_columns(model, combination_of_columns) %}

with

keyed as (
    select {{ combination_of_columns | join(', ') }}
    from {{ model }}
),

duplicated as (
    select
        {{ combination_of_columns | join(', ') }},
        count(*) as n_rows
    from keyed
    group by {{ combination_of_columns | join(', ') }}
    having count(*) > 1
)

select * from duplicated

{% endtest %}
