{#- Paper table A1: the red-team transcripts with the model's display name. -#}
with

redteam_summary as (
    select * from {{ ref('redteam_summary') }}
),

model_scores as (
    select * from {{ ref('model_scores') }}
),

final as (
    select
        redteam_summary.release_id,
        redteam_summary.transcript_id,
        redteam_summary.model_id,
        coalesce(model_scores.display_name, redteam_summary.model_id) as model_label,
        redteam_summary.n_turns,
        redteam_summary.n_user_turns,
        redteam_summary.n_assistant_turns,
        redteam_summary.n_characters,
        cast(row_number() over (order by redteam_summary.transcript_id) as {{ dbt.type_bigint() }}) as row_order
    from redteam_summary
    left join model_scores
        on redteam_summary.model_id = model_scores.model_id
)

select * from final
