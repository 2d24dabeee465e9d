-- int_judge_labels_aggregated: a mask has one bit per labelled (or met) sample, so its bit
-- count equals n_labels (n_met).
select
    response_key,
    criterion_key,
    judge_id,
    n_labels,
    n_met,
    sample_mask,
    met_sample_mask
from {{ ref('int_judge_labels_aggregated') }}
where
    sample_mask is not null
    and (
        {{ mask_bit_count('sample_mask') }} != n_labels
        or {{ mask_bit_count('met_sample_mask') }} != n_met
        or n_met > n_labels
    )
