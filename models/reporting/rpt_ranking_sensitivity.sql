{#- Table J2: the leaderboard under each label subset (ranking_sensitivity), by judge, the judge
    alone before its single samples. -#}
with

ranking_sensitivity as (
    select * from {{ ref('ranking_sensitivity') }}
),

final as (
    select
        release_id,
        case when is_judge_alone then 'judge' else 'sample' end as row_group,
        judge_id,
        sample_index,
        case
            when is_judge_alone then judge_id || ' (all samples)'
            else judge_id || ', sample ' || cast(sample_index as {{ dbt.type_string() }})
        end as label,
        n_pairs,
        n_pairs_labelled,
        coverage,
        is_complete,
        n_models,
        best_model_score,
        median_model_score,
        kendall_tau_b,
        n_rank_changes,
        max_rank_change,
        cast(row_number() over (
            order by
                judge_id,
                case when sample_index is null then 0 else 1 end,
                sample_index
        ) as {{ dbt.type_bigint() }}) as row_order
    from ranking_sensitivity
)

select * from final
