{#- Every pair of ranked models, the higher-ranked first (by the one ranking order): the paired
    bootstrap difference and whether its interval excludes 0 (if not, the two cannot be told
    apart). -#}
with

bootstrap as (
    select * from {{ ref('int_bootstrap_resampled') }}
),

pairs as (
    select
        model_id,
        other_model_id,
        estimate as difference,
        ci_low,
        ci_high
    from bootstrap
    where statistic = 'pair_difference'
),

final as (
    select
        {{ release_id() }} as release_id,
        pairs.model_id,
        pairs.other_model_id,
        pairs.difference,
        pairs.ci_low,
        pairs.ci_high,
        pairs.ci_low > 0 or pairs.ci_high < 0 as is_separated
    from pairs
)

select * from final
