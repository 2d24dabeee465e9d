{#- One row per red-team transcript of the annex: its length and who speaks. -#}
with

transcripts as (
    select * from {{ ref('stg_release__redteam_transcripts') }}
),

summarised as (
    select
        transcript_id,
        any_value(model_id) as model_id,
        count(*) as n_turns,
        count(*) filter (where role = 'user') as n_user_turns,
        count(*) filter (where role = 'assistant') as n_assistant_turns,
        cast(sum(length(turn_text)) as bigint) as n_characters
    from transcripts
    group by transcript_id
),

final as (
    select
        {{ release_id() }} as release_id,
        summarised.*
    from summarised
)

select * from final
