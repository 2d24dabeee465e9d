{#- Report table C1: each model of this release or the previous one against the previous
    release, ranked models first in this release's ranking order, then models only the
    previous release had (by their previous rank), then the clinician reference. -#}
with

release_changes as (
    select * from {{ ref('release_changes') }}
),

model_scores as (
    select * from {{ ref('model_scores') }}
),

final as (
    select
        release_changes.release_id,
        release_changes.previous_release_id,
        case when release_changes.kind = 'clinician_reference' then 'reference' else 'model' end as row_group,
        release_changes.model_id,
        coalesce(release_changes.display_name, release_changes.model_id) as label,
        release_changes.kind,
        release_changes.status,
        release_changes.score,
        release_changes.ci_low,
        release_changes.ci_high,
        release_changes.previous_score,
        release_changes.previous_ci_low,
        release_changes.previous_ci_high,
        release_changes.score_difference,
        release_changes.rank,
        release_changes.previous_rank,
        release_changes.rank_change,
        release_changes.letters,
        release_changes.previous_letters,
        release_changes.rank_upper_bound,
        release_changes.previous_rank_upper_bound,
        release_changes.not_comparable_reason,
        cast(row_number() over (
            order by
                case when release_changes.kind = 'clinician_reference' then 1 else 0 end asc,
                case when model_scores.ranking_position is null then 1 else 0 end asc,
                model_scores.ranking_position asc,
                case when release_changes.previous_rank is null then 1 else 0 end asc,
                release_changes.previous_rank asc,
                release_changes.model_id asc
        ) as {{ dbt.type_bigint() }}) as row_order
    from release_changes
    left join model_scores
        on release_changes.model_id = model_scores.model_id
)

select * from final
