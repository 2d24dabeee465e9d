{#- Every pair of ranked models, the higher-ranked first (by the one ranking order): the paired
    bootstrap difference with its unadjusted interval (one pair alone) and its family-wise one
    (simultaneous over all pairs, the max-statistic bootstrap); is_separated_familywise drives
    the letters and the rank upper bound. -#}
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

familywise as (
    select
        model_id,
        other_model_id,
        ci_low as adjusted_ci_low,
        ci_high as adjusted_ci_high
    from bootstrap
    where statistic = 'pair_difference_familywise'
),

final as (
    select
        {{ release_id() }} as release_id,
        pairs.model_id,
        pairs.other_model_id,
        pairs.difference,
        pairs.ci_low,
        pairs.ci_high,
        pairs.ci_low > 0 or pairs.ci_high < 0 as is_separated,
        familywise.adjusted_ci_low,
        familywise.adjusted_ci_high,
        familywise.adjusted_ci_low > 0 or familywise.adjusted_ci_high < 0 as is_separated_familywise
    from pairs
    inner join familywise
        on
            pairs.model_id = familywise.model_id
            and pairs.other_model_id = familywise.other_model_id
)

select * from final
