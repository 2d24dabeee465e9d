{#- The release's task ids, one row per task: what `distressbench build` carries into the
    history of the next release built into the warehouse, so that it can tell whether the two
    releases measured the same tasks (release_comparison). -#}
with

tasks as (
    select * from {{ ref('stg_release__tasks') }}
),

final as (
    select
        {{ release_id() }} as release_id,
        task_id
    from tasks
)

select * from final
