{#- The judge calibration's bootstrap intervals (agreement, Cohen's kappa, F1) per dimension
    with calibrated pairs and 'all': the calibration rows of int_bootstrap_resampled, whose
    resample b reweights the same tasks as the leaderboard's, one row per dimension. -#}
with

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

calibration as (
    select * from bootstrap
    where statistic like 'calibration_%' and dimension is not null and model_id is null
),

final as (
    select
        dimension,
        {{ calibration_intervals() }}
    from calibration
    group by dimension
)

select * from final
