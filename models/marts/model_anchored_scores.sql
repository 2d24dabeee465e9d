{#- Each model's score anchored to the clinicians (prediction-powered, distressbench.stats.anchored):
    the judge-only score of model_scores plus the clinicians' weighted mean correction on the
    model's calibrated pairs, with its task-bootstrap interval; null, with the reason, for a
    model with fewer than var anchored_min_pairs calibrated pairs. -#}
with

model_scores as (
    select * from {{ ref('model_scores') }}
),

anchored_pairs as (
    select * from {{ ref('int_anchored_pairs') }}
),

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

pair_counts as (
    select
        model_id,
        count(*) as n_clinician_pairs
    from anchored_pairs
    group by model_id
),

anchored as (
    select
        model_id,
        estimate as anchored_score,
        ci_low as anchored_ci_low,
        ci_high as anchored_ci_high
    from bootstrap
    where statistic = 'anchored_score'
),

final as (
    select
        model_scores.release_id,
        model_scores.model_id,
        model_scores.display_name,
        model_scores.kind,
        model_scores.ranking_position,
        model_scores.score,
        model_scores.ci_low,
        model_scores.ci_high,
        cast(coalesce(pair_counts.n_clinician_pairs, 0) as {{ dbt.type_bigint() }}) as n_clinician_pairs,
        anchored.anchored_score,
        anchored.anchored_ci_low,
        anchored.anchored_ci_high,
        anchored.anchored_score - model_scores.score as anchored_minus_score,
        case
            when anchored.anchored_score is not null then cast(null as {{ dbt.type_string() }})
            when pair_counts.n_clinician_pairs is null
                then 'no clinician label on the replies of this model (e.g. a new submission)'
            else
                'fewer than '
                || cast({{ var('anchored_min_pairs') }} as {{ dbt.type_string() }})
                || ' calibrated pairs (var anchored_min_pairs)'
        end as anchored_null_reason
    from model_scores
    left join pair_counts
        on model_scores.model_id = pair_counts.model_id
    left join anchored
        on model_scores.model_id = anchored.model_id
)

select * from final
