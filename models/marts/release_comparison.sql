{#- Whether this release compares with the previous one (int_previous_release_selected): their
    task sets (this release's tasks against the previous release's, carried in history as
    release_tasks), how many tasks were added and removed. Two releases of different task sets
    did not measure the same thing: release_changes and headline_changes then mark the change
    not comparable. A previous release whose task ids history lacks (published before they
    were kept) is compared as before, with is_task_set_known false. One row, none when there
    is no previous release. -#}
with

tasks as (
    select * from {{ ref('stg_release__tasks') }}
),

previous_release as (
    select * from {{ ref('int_previous_release_selected') }}
),

history_tasks as (
    select * from {{ ref('stg_history__release_tasks') }}
),

previous_tasks as (
    select distinct history_tasks.task_id
    from history_tasks
    inner join previous_release
        on history_tasks.release_id = previous_release.previous_release_id
),

current_tasks as (
    select distinct task_id
    from tasks
),

task_counts as (
    select
        count(current_tasks.task_id) as n_tasks,
        count(previous_tasks.task_id) as previous_n_tasks,
        sum(case when previous_tasks.task_id is null then 1 else 0 end) as n_tasks_added,
        sum(case when current_tasks.task_id is null then 1 else 0 end) as n_tasks_removed
    from current_tasks
    full outer join previous_tasks
        on current_tasks.task_id = previous_tasks.task_id
),

compared as (
    select
        previous_release.previous_release_id,
        cast(task_counts.n_tasks as {{ dbt.type_bigint() }}) as n_tasks,
        cast(task_counts.previous_n_tasks as {{ dbt.type_bigint() }}) as previous_n_tasks,
        cast(coalesce(task_counts.n_tasks_added, 0) as {{ dbt.type_bigint() }}) as n_tasks_added,
        cast(coalesce(task_counts.n_tasks_removed, 0) as {{ dbt.type_bigint() }}) as n_tasks_removed,
        task_counts.previous_n_tasks > 0 as is_task_set_known
    from previous_release
    cross join task_counts
),

final as (
    select
        {{ release_id() }} as release_id,
        previous_release_id,
        n_tasks,
        previous_n_tasks,
        n_tasks_added,
        n_tasks_removed,
        is_task_set_known,
        not is_task_set_known or (n_tasks_added = 0 and n_tasks_removed = 0) as is_comparable,
        case
            when is_task_set_known and (n_tasks_added > 0 or n_tasks_removed > 0)
                then 'the task sets differ: ' || cast(n_tasks as {{ dbt.type_string() }}) || ' tasks here, '
                    || cast(previous_n_tasks as {{ dbt.type_string() }}) || ' in the previous release ('
                    || cast(n_tasks_added as {{ dbt.type_string() }}) || ' added, '
                    || cast(n_tasks_removed as {{ dbt.type_string() }}) || ' removed)'
        end as not_comparable_reason
    from compared
)

select * from final
