{#- The judge calibration's bootstrap intervals (agreement, Cohen's kappa, F1) per dimension
    with calibrated pairs and 'all': the calibration rows of int_bootstrap_resampled, whose
    resample b reweights the same tasks as the leaderboard's, one row per dimension. -#}
with

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

calibration as (
    select * from bootstrap
    where dimension is not null and model_id is null
),

final as (
    select
        dimension,
        max(case when statistic = 'calibration_agreement' then ci_low end) as agreement_ci_low,
        max(case when statistic = 'calibration_agreement' then ci_high end) as agreement_ci_high,
        max(case when statistic = 'calibration_kappa' then ci_low end) as kappa_ci_low,
        max(case when statistic = 'calibration_kappa' then ci_high end) as kappa_ci_high,
        max(case when statistic = 'calibration_f1' then ci_low end) as f1_ci_low,
        max(case when statistic = 'calibration_f1' then ci_high end) as f1_ci_high
    from calibration
    group by dimension
)

select * from final
