{#- The order of models in every table and figure: the ranked models in the one ranking order
    (model_scores.ranking_position), then the models shown unranked (judged otherwise; by score),
    then the clinician reference, never ranked. Also the pivot column list of the tables with
    one column per model. -#}
with

model_scores as (
    select * from {{ ref('model_scores') }}
),

final as (
    select
        model_id,
        display_name,
        kind,
        case
            when kind = 'clinician_reference' then 'reference'
            when is_ranked then 'model'
            else 'unranked'
        end as row_group,
        case
            when kind = 'clinician_reference' then 'Reference'
            when is_ranked then 'Ranked models'
            else 'Unranked models'
        end as column_group,
        cast(row_number() over (
            order by
                case when is_ranked then 0 when kind = 'clinician_reference' then 2 else 1 end asc,
                ranking_position asc,
                score desc nulls last,
                model_id asc
        ) as {{ dbt.type_bigint() }}) as model_order
    from model_scores
)

select * from final
