{#- The paper's corpus table in long form: one row per (section, item, statistic). -#}
with

tasks as (
    select * from {{ ref('stg_release__tasks') }}
),

criteria as (
    select * from {{ ref('stg_release__criteria') }}
),

models as (
    select * from {{ ref('stg_release__models') }}
),

responses as (
    select * from {{ ref('stg_release__responses') }}
),

verdicts as (
    select * from {{ ref('int_verdicts_keyed') }}
),

adjudicated as (
    select * from {{ ref('int_calibration_labels_adjudicated') }}
),

subcategories as (
    select * from {{ ref('subcategories') }}
),

dimensions as (
    select * from {{ ref('dimensions') }}
),

tasks_by_subcategory as (
    select
        'tasks_by_subcategory' as section,
        subcategories.subcategory_id as item,
        'n_tasks' as statistic,
        cast(count(tasks.task_id) as double) as value
    from subcategories
    left join tasks
        on subcategories.subcategory_id = tasks.subcategory
    group by subcategories.subcategory_id
),

tasks_by_turn_type as (
    select
        'tasks_by_turn_type' as section,
        turn_type as item,
        'n_tasks' as statistic,
        cast(count(*) as double) as value
    from tasks
    group by turn_type
),

criteria_counts as (
    select
        task_id,
        count(*) as n_criteria
    from criteria
    group by task_id
),

criteria_per_task_wide as (
    select
        cast(min(n_criteria) as double) as min,
        cast({{ median_of('n_criteria') }} as double) as median,
        cast(max(n_criteria) as double) as max,
        cast(avg(n_criteria) as double) as mean
    from criteria_counts
),

criteria_per_task as (
    {{ unpivot_columns('criteria_per_task_wide', ['min', 'median', 'max', 'mean']) }}
),

criteria_per_task_rows as (
    select
        'criteria_per_task' as section,
        'all' as item,
        statistic,
        value
    from criteria_per_task
),

weight_distribution as (
    select
        'weight_distribution' as section,
        cast(weight as {{ dbt.type_string() }}) as item,
        'n_criteria' as statistic,
        cast(count(*) as double) as value
    from criteria
    group by weight
),

dimension_totals as (
    select
        dimensions.dimension_id as item,
        count(criteria.criterion_id) as n_criteria,
        coalesce(sum(criteria.weight), 0) as weight_total
    from dimensions
    left join criteria
        on dimensions.dimension_id = criteria.dimension
    group by dimensions.dimension_id
),

dimension_shares_wide as (
    select
        item,
        cast(n_criteria as double) as n_criteria,
        n_criteria / sum(n_criteria) over () as criteria_share,
        weight_total / sum(weight_total) over () as weight_share
    from dimension_totals
),

dimension_shares as (
    {{ unpivot_columns('dimension_shares_wide', ['n_criteria', 'criteria_share', 'weight_share'], keep=['item']) }}
),

dimension_rows as (
    select
        'dimension' as section,
        item,
        statistic,
        value
    from dimension_shares
),

counts as (
    select
        'n_tasks' as statistic,
        cast(count(*) as double) as value
    from tasks
    union all
    select
        'n_criteria' as statistic,
        cast(count(*) as double) as value
    from criteria
    union all
    select
        'n_models' as statistic,
        cast(count(*) filter (where is_ranked) as double) as value
    from models
    union all
    select
        'n_clinician_references' as statistic,
        cast(count(*) filter (where not is_ranked) as double) as value
    from models
    union all
    select
        'n_responses' as statistic,
        cast(count(*) as double) as value
    from responses
    union all
    select
        'n_empty_responses' as statistic,
        cast(count(*) filter (where is_empty) as double) as value
    from responses
    union all
    select
        'n_judge_labels' as statistic,
        cast(sum(n_labels) as double) as value
    from verdicts
    union all
    select
        'n_verdicts' as statistic,
        cast(count(*) as double) as value
    from verdicts
    union all
    select
        'n_calibrated_pairs' as statistic,
        cast(count(*) as double) as value
    from adjudicated
    union all
    select
        'n_calibrated_pairs_tied' as statistic,
        cast(count(*) filter (where is_tie) as double) as value
    from adjudicated
),

count_rows as (
    select
        'counts' as section,
        'all' as item,
        statistic,
        value
    from counts
),

unioned as (
    select * from tasks_by_subcategory
    union all
    select * from tasks_by_turn_type
    union all
    select * from criteria_per_task_rows
    union all
    select * from weight_distribution
    union all
    select * from dimension_rows
    union all
    select * from count_rows
),

final as (
    select
        {{ release_id() }} as release_id,
        unioned.section,
        unioned.item,
        unioned.statistic,
        unioned.value
    from unioned
)

select * from final
