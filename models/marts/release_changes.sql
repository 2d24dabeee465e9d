{#- Each model of this release or the previous one (int_previous_release_selected), its
    score, interval, rank, letters and rank upper bound in both; empty when there is no
    previous release. A model is 'unchanged' only when its score, interval, letters and rank
    upper bound all are; 'not comparable' (no difference, no rank change) when the two
    releases differ in their task set (release_comparison says how). -#}
with

current_scores as (
    select * from {{ ref('model_scores') }}
),

previous_release as (
    select * from {{ ref('int_previous_release_selected') }}
),

comparison as (
    select * from {{ ref('release_comparison') }}
),

history_scores as (
    select * from {{ ref('stg_history__model_scores') }}
),

previous_scores as (
    select history_scores.*
    from history_scores
    inner join previous_release
        on history_scores.release_id = previous_release.previous_release_id
),

paired as (
    select
        coalesce(current_scores.model_id, previous_scores.model_id) as model_id,
        coalesce(current_scores.display_name, previous_scores.display_name) as display_name,
        coalesce(current_scores.kind, previous_scores.kind) as kind,
        current_scores.model_id is not null as is_in_release,
        previous_scores.model_id is not null as is_in_previous,
        current_scores.score,
        previous_scores.score as previous_score,
        current_scores.ci_low,
        current_scores.ci_high,
        previous_scores.ci_low as previous_ci_low,
        previous_scores.ci_high as previous_ci_high,
        current_scores.rank,
        previous_scores.rank as previous_rank,
        current_scores.letters,
        previous_scores.letters as previous_letters,
        current_scores.rank_upper_bound,
        previous_scores.rank_upper_bound as previous_rank_upper_bound
    from current_scores
    full outer join previous_scores
        on current_scores.model_id = previous_scores.model_id
),

paired_compared as (
    select
        paired.*,
        comparison.is_comparable
    from paired
    cross join comparison
),

classified as (
    select
        *,
        case
            when not is_in_previous then 'new'
            when not is_in_release then 'removed'
            when not is_comparable then 'not comparable'
            when
                {{ is_within_tolerance('score', 'previous_score') }}
                and {{ is_within_tolerance('ci_low', 'previous_ci_low') }}
                and {{ is_within_tolerance('ci_high', 'previous_ci_high') }}
                and coalesce(letters = previous_letters, letters is null and previous_letters is null)
                and coalesce(
                    rank_upper_bound = previous_rank_upper_bound,
                    rank_upper_bound is null and previous_rank_upper_bound is null
                )
                then 'unchanged'
            else 'changed'
        end as status
    from paired_compared
),

final as (
    select
        {{ release_id() }} as release_id,
        comparison.previous_release_id,
        classified.model_id,
        classified.display_name,
        classified.kind,
        classified.status,
        classified.score,
        classified.previous_score,
        case when classified.is_comparable then classified.score - classified.previous_score end as score_difference,
        classified.ci_low,
        classified.ci_high,
        classified.previous_ci_low,
        classified.previous_ci_high,
        classified.rank,
        classified.previous_rank,
        case when classified.is_comparable then classified.previous_rank - classified.rank end as rank_change,
        classified.letters,
        classified.previous_letters,
        classified.rank_upper_bound,
        classified.previous_rank_upper_bound,
        comparison.not_comparable_reason
    from classified
    cross join comparison
)

select * from final
