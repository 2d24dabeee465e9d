{#- The clinicians' majority label per calibrated (reply, criterion); a tie has no gold label. -#}
with

calibration_labels as (
    select * from {{ ref('stg_release__calibration_labels') }}
),

votes as (
    select
        response_id,
        criterion_id,
        count(*) as n_annotators,
        count(*) filter (where is_met) as n_met
    from calibration_labels
    group by response_id, criterion_id
),

final as (
    select
        *,
        n_met * 2 = n_annotators as is_tie,
        case
            when n_met * 2 > n_annotators then true
            when n_met * 2 < n_annotators then false
        end as is_gold_met
    from votes
)

select * from final
