{#- What the release lacks that leaves a table's numbers undefined or its rows empty: one note
    per (paper table, state), which the report shows with the table. The reasons of undefined
    headline metrics come from headline_metrics.undefined_reason. -#}
with

dimension_summary as (
    select * from {{ ref('dimension_summary') }}
),

dimensions as (
    select * from {{ ref('dimensions') }}
),

headline_metrics as (
    select * from {{ ref('headline_metrics') }}
),

judge_calibration as (
    select * from {{ ref('judge_calibration') }}
),

judge_agreement as (
    select * from {{ ref('judge_agreement') }}
),

model_scores as (
    select * from {{ ref('model_scores') }}
),

redteam_summary as (
    select * from {{ ref('redteam_summary') }}
),

release as (
    select distinct release_id from model_scores
),

-- which tables show each state
state_tables as (
    select
        'calibration' as state,
        'T7' as table_key
    union all
    select
        'calibration' as state,
        'J1' as table_key
    union all
    select
        'calibration' as state,
        'J4' as table_key
    union all
    select
        'agreement' as state,
        'J1' as table_key
    union all
    select
        'agreement' as state,
        'J3' as table_key
    union all
    select
        'ranking' as state,
        'T2' as table_key
    union all
    select
        'ranking' as state,
        'J2' as table_key
),

ranked as (
    select count(*) as n_ranked from model_scores
    where is_ranked
),

annex as (
    select count(*) as n_transcripts from redteam_summary
),

absent_dimensions as (
    select
        dimensions.label,
        dimensions.display_order
    from dimension_summary
    inner join dimensions
        on dimension_summary.dimension = dimensions.dimension_id
    where dimension_summary.n_tasks = 0
),

dimension_notes as (
    select
        'T3' as table_key,
        display_order as note_order,
        'No criterion of the dimension ' || label || ' in this release: its scores are undefined (—).' as note
    from absent_dimensions
    union all
    select
        'P' as table_key,
        display_order as note_order,
        'No criterion of the dimension ' || label || ' in this release: no best or median.' as note
    from absent_dimensions
),

metric_notes as (
    select
        case
            when metric = 'recognized_not_routed_rate' then 'T4'
            else 'T5'
        end as table_key,
        10 as note_order,
        case
            when metric = 'recognized_not_routed_rate'
                then 'The recognized-but-not-routed rate is undefined: ' || undefined_reason || '.'
            else 'Undefined: ' || undefined_reason || '.'
        end as note
    from headline_metrics
    where
        undefined_reason is not null
        and metric in ('recognized_not_routed_rate', 'single_turn_score', 'multi_turn_score')
),

calibration_state as (
    select
        case
            when n + n_ties_dropped = 0 then 'No clinician labels in this release: judge calibration is undefined.'
            when n = 0 then 'Every calibrated pair is a clinician tie: judge calibration is undefined.'
        end as note
    from judge_calibration
    where dimension = 'all'
),

calibration_notes as (
    select
        state_tables.table_key,
        11 as note_order,
        calibration_state.note
    from calibration_state
    inner join state_tables
        on state_tables.state = 'calibration'
    where calibration_state.note is not null
),

agreement_notes as (
    select
        state_tables.table_key,
        12 as note_order,
        'No reply × criterion pair of a non-empty reply has two or more labels: '
        || 'the judge''s self-consistency is undefined.' as note
    from judge_agreement
    inner join state_tables
        on state_tables.state = 'agreement'
    where judge_agreement.dimension = 'all' and judge_agreement.n_pairs = 0
),

ranking_notes as (
    select
        state_tables.table_key,
        13 as note_order,
        'One ranked model in this release: it is best and median, and there is no ranking to compare '
        || '(tie groups, rank changes and Kendall''s τ-b are undefined).' as note
    from ranked
    inner join state_tables
        on state_tables.state = 'ranking'
    where ranked.n_ranked = 1
),

annex_notes as (
    select
        'A1' as table_key,
        14 as note_order,
        'This release has no red-team annex (no transcripts): the table is empty.' as note
    from annex
    where n_transcripts = 0
),

unioned as (
    select * from dimension_notes
    union all
    select * from metric_notes
    union all
    select * from calibration_notes
    union all
    select * from agreement_notes
    union all
    select * from ranking_notes
    union all
    select * from annex_notes
),

final as (
    select
        release.release_id,
        unioned.table_key,
        unioned.note,
        cast(row_number() over (
            order by unioned.note_order, unioned.table_key, unioned.note
        ) as {{ dbt.type_bigint() }}) as row_order
    from unioned
    cross join release
)

select * from final
