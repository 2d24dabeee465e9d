"""The SQL of the judge labels' checks (gate/rules.yml names these views as its label probes'
sources; the other sources are rules.yml's own): the views of the judge labels' one pass, and
the queries that fetch a failing label rule's examples.

Every statement is constant text (no path, id or value of the release enters it); the
release's tables are the staging tables dbt built (RAW_VIEWS).
"""

from __future__ import annotations

from dataclasses import dataclass

from distressbench.gate.results import N_EXAMPLES

ROW = "file_row_number"


@dataclass(frozen=True)
class Derived:
    """A helper view (or table, when `materialize`) over valid tables."""

    name: str
    needs: tuple[str, ...]
    sql: str
    materialize: bool = False


# judge_labels is read once, by int_judge_labels_aggregated (dbt runs it with the staging models
# before these checks): one row per (reply, criterion, judge) with its label counts, sample
# masks, null met labels and surrogate keys (null for a null id, -1 for an id not in the
# release); label_ids adds whether the criterion is of the reply's task. Every label check
# counts on those rows. The raw file is read again only where the groups say it must be: for
# a failing check's example rows; for the null and negative sample indexes when a group has
# no sample mask (label_samples; a group holding such an index has none); and, since a
# repeated (judge, sample) shows as more labels than mask bits, for the groups that may
# repeat one (label_dups).
FULL_KEY = "response_key is not null and criterion_key is not null and judge_id is not null"
DUP_CANDIDATE = f"{FULL_KEY} and n_labels > case when sample_mask is null then 1 else bit_count(sample_mask) end"
NO_SAMPLE_MASK = "sample_mask is null"
SAMPLE_COUNTS = (
    "count(*) - count(sample_index) as n_null_sample_index, "
    "count(*) filter (where sample_index < 0) as n_negative_sample_index"
)
LABEL_VIEWS: tuple[Derived, ...] = (
    Derived("label_groups", ("judge_labels",), "select * from intermediate.int_judge_labels_aggregated"),
    # a rubric pair (is_rubric_pair: the one pass joined both ids) is of one task; only the
    # other groups, none in a release that passes, are looked up again
    Derived(
        "label_ids",
        ("judge_labels", "responses", "criteria"),
        "select response_key, criterion_key, n_labels, true as is_same_task from label_groups "
        "where is_rubric_pair union all "
        "select g.response_key, g.criterion_key, g.n_labels, r.task_id = c.task_id as is_same_task "
        "from label_groups g left join response_index r on r.response_key = g.response_key "
        "left join criterion_index c on c.criterion_key = g.criterion_key where not g.is_rubric_pair",
        materialize=True,
    ),
    # per reply; read only for the examples of a failing labels_complete (a view is lazy)
    Derived(
        "label_coverage",
        ("judge_labels", "responses", "criteria"),
        "select r.response_id, r.response_key, r.task_id, coalesce(tc.n_ids, 0) as n_expected, "
        "coalesce(v.n_labeled, 0) as n_labeled from response_index r "
        "left join task_criteria tc on tc.task_id = r.task_id left join ("
        "select response_key, count(distinct criterion_key) as n_labeled from label_ids where is_same_task "
        "group by response_key) v on v.response_key = r.response_key",
    ),
    # the same in total: (reply, criterion of its task) pairs against those with a label (a
    # labelled pair has a row per judge, so the pairs are counted distinct)
    Derived(
        "label_totals",
        ("judge_labels", "responses", "criteria"),
        "select (select coalesce(sum(tc.n_ids), 0) from response_index r "
        "inner join task_criteria tc on tc.task_id = r.task_id) as n_expected, "
        "(select count(*) from (select distinct response_key, criterion_key from label_ids "
        "where is_same_task)) as n_labeled",
        materialize=True,
    ),
)
LABEL_DUP_KEYS = """
select l.response_id, l.criterion_id, l.judge_id, l.sample_index, count(*) as n from judge_labels l
semi join (
    select r.response_id, c.criterion_id, g.judge_id from (select * from label_groups where {candidate}) g
    inner join response_index r on r.response_key = g.response_key
    inner join criterion_index c on c.criterion_key = g.criterion_key
) k
    on k.response_id = l.response_id and k.criterion_id = l.criterion_id and k.judge_id = l.judge_id
where l.sample_index is not null
group by l.response_id, l.criterion_id, l.judge_id, l.sample_index having count(*) > 1
"""
LABEL_DUP_KEYS_UNKEYED = """
select response_id, criterion_id, judge_id, sample_index, count(*) as n from judge_labels
where response_id is not null and criterion_id is not null and judge_id is not null and sample_index is not null
group by response_id, criterion_id, judge_id, sample_index having count(*) > 1
"""
MISSING_LABELS_SQL = f"""
with r as (
    select response_id, response_key, task_id from label_coverage where n_labeled < n_expected
    order by response_id limit {N_EXAMPLES}
)
select r.response_id, c.criterion_id from r join criterion_index c on c.task_id = r.task_id
anti join label_ids p on p.response_key = r.response_key and p.criterion_key = c.criterion_key and p.is_same_task
order by r.response_id, c.criterion_id limit {N_EXAMPLES}
"""
DANGLING_LABELS_SQL = f"""
select l.response_id, l.criterion_id, count(*) as n_labels from judge_labels l
anti join {{index}} x on x.{{column}} = l.{{column}}
where l.response_id is not null and l.criterion_id is not null
group by l.response_id, l.criterion_id order by l.response_id, l.criterion_id limit {N_EXAMPLES}
"""
SAME_TASK_LABELS_SQL = f"""
select r.response_id, c.criterion_id, c.task_id as criterion_task, r.task_id as response_task from label_ids g
inner join response_index r on r.response_key = g.response_key
inner join criterion_index c on c.criterion_key = g.criterion_key
where g.is_same_task = false order by r.response_id, c.criterion_id limit {N_EXAMPLES}
"""


# Each table as the release file has it, read from the staging table built from it (the
# columns staging renames get their file names back); judge_labels is the raw file itself,
# read only for example rows of a failing label check.
RAW_VIEWS: dict[str, str] = {
    "tasks": "select file_row_number, task_id, subcategory, n_user_turns, reference_response "
    "from staging.stg_release__tasks",
    "turns": "select file_row_number, task_id, turn_index, role, turn_text as content from staging.stg_release__turns",
    "criteria": "select file_row_number, criterion_id, task_id, dimension, weight, criterion_text as text "
    "from staging.stg_release__criteria",
    "models": "select file_row_number, model_id, display_name, provider, kind from staging.stg_release__models",
    "responses": "select file_row_number, response_id, task_id, model_id, response_text as content "
    "from staging.stg_release__responses",
    "judge_labels": "select * from release_source__judge_labels",
    "calibration_labels": "select file_row_number, response_id, criterion_id, annotator_id, is_met as met "
    "from staging.stg_release__calibration_labels",
    "redteam_transcripts": "select file_row_number, transcript_id, turn_index, role, turn_text as content, model_id "
    "from staging.stg_release__redteam_transcripts",
}
