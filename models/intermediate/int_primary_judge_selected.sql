{#- The release's primary judge, whose self-consistency is the headline judge_alpha: the
    judge the manifest names (`primary_judge`; the gate checks it has labels), else the
    judge with the most labels on the rubric pairs, ties to the smallest judge_id. One row
    (none when the release has no labels). -#}
with

manifest as (
    select * from {{ ref('stg_release__manifest') }}
),

judge_groups as (
    select * from {{ ref('int_judge_labels_aggregated') }}
),

judges as (
    select
        judge_id,
        sum(n_labels) as n_labels
    from judge_groups
    where is_rubric_pair
    group by judge_id
),

ranked as (
    select
        judges.judge_id,
        judges.n_labels,
        manifest.primary_judge_id is not null as is_named_in_manifest,
        row_number() over (
            order by
                case when judges.judge_id = manifest.primary_judge_id then 0 else 1 end asc,
                judges.n_labels desc,
                judges.judge_id asc
        ) as choice
    from judges
    cross join manifest
    where manifest.primary_judge_id is null or judges.judge_id = manifest.primary_judge_id
),

final as (
    select
        judge_id,
        cast(n_labels as {{ dbt.type_bigint() }}) as n_labels,
        case
            when is_named_in_manifest then 'named in the manifest'
            else 'the most labels'
        end as selection_reason
    from ranked
    where choice = 1
)

select * from final
