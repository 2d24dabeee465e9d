"""Gate stage 3: every value invariant of the contract.

DuckDB reads the Parquet files (registered through its Python API, so no path, id or text
ever enters SQL) and hands Great Expectations small pandas frames:

- the small tables themselves (tasks, turns, criteria, models, the red-team annex), on
  which column expectations check nulls, keys, sets, bounds and non-empty text;
- per-task and per-transcript profiles (criteria count, turn order), checked the same way;
- for the big tables and the cross-table rules, a frame of offending-row counts that DuckDB
  computes (one query per source) and on which GX expects zeros; example keys of a failed
  check are fetched afterwards. judge_labels is aggregated once to one row per
  (response, criterion) pair, and references and completeness are checked on that.

Every check reads only tables that passed the schema stage; the others are skipped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from distressbench.gate.gx import N_EXAMPLES, GxRunner, Outcome, gx
from distressbench.gate.results import Recorder, listing, quote
from distressbench.release import contract

STAGE = "values"
ROW = "file_row_number"
LABEL_KEY = ("response_id", "criterion_id", "judge_id", "sample_index")
CALIBRATION_KEY = ("response_id", "criterion_id", "annotator_id")

E = gx.expectations


# --------------------------------------------------------------------------------------
# What a check is


@dataclass(frozen=True)
class Rule:
    """One GX expectation on a frame, reported as one check.

    The message reads '<n> <unit|units> <problem>; <key> (<show>): examples'.
    """

    check: str
    table: str
    column: str
    expectation: Callable[[], Any]
    unit: str
    units: str
    problem: str
    show: tuple[tuple[str, str], ...] = ()  # (frame column, label) shown after the key
    with_row: bool = False  # name the file row (for null checks, where the key may be null)
    grouped: bool = False  # several failing rows share one example key (duplicates)
    describe: Callable[[Outcome, pd.DataFrame], tuple[int, list[str], str]] | None = None


@dataclass(frozen=True)
class Frame:
    """A pandas frame DuckDB builds from valid tables, and the rules GX checks on it."""

    name: str
    needs: tuple[str, ...]
    sql: str
    key: tuple[str, ...]
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class Probe:
    """Offending rows DuckDB counts; GX expects the count to be zero."""

    check: str
    table: str
    column: str
    needs: tuple[str, ...]
    source: str  # a registered table or derived view
    bad: str  # SQL predicate over `source` (constant text, never data)
    key: tuple[str, ...]
    unit: str
    units: str
    problem: str
    show: tuple[tuple[str, str], ...] = ()
    rows: str = "count(*)"  # SQL aggregate: how many rows of `table` offend
    with_row: bool = False
    examples_sql: str | None = None  # overrides 'select key from source where bad limit 20'
    grouped: bool = False  # an example stands for several offending rows (its count is shown)


@dataclass(frozen=True)
class Derived:
    """A helper view (or table, when `materialize`) over valid tables."""

    name: str
    needs: tuple[str, ...]
    sql: str
    materialize: bool = False


# --------------------------------------------------------------------------------------
# Showing values


def show_value(value: Any) -> str:
    """A value as the gate prints it: strings quoted, nulls as NULL, lists shortened."""
    if hasattr(value, "tolist") and not isinstance(value, str):  # numpy scalars and arrays
        value = value.tolist()
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "NULL"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        items = [show_value(v) for v in list(value)[:12]]
        return "[" + ", ".join(items) + (", ..." if len(value) > 12 else "") + "]"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _key_label(key: tuple[str, ...], show: tuple[tuple[str, str], ...], with_row: bool) -> str:
    label = key[0] if len(key) == 1 else "(" + ", ".join(key) + ")"
    extras = (["file row"] if with_row else []) + [name for _, name in show]
    return label + (f" ({', '.join(extras)})" if extras else "")


def _example(row: dict[str, Any], key: tuple[str, ...], show: tuple[tuple[str, str], ...], with_row: bool) -> str:
    parts = [show_value(row[k]) for k in key]
    text = parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"
    # Columns named *_json already hold JSON text (lists are kept out of GX frames: they slow it down).
    shown = [str(row[c]) if c.endswith("_json") and isinstance(row[c], str) else show_value(row[c]) for c, _ in show]
    extras = ([f"row {int(row[ROW])}"] if with_row else []) + shown
    return text + (f" ({', '.join(extras)})" if extras else "")


def _examples(
    rows: Iterable[dict[str, Any]], key: tuple[str, ...], show: tuple[tuple[str, str], ...], with_row: bool
) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.setdefault(_example(row, key, show, with_row))
    return list(seen)[:N_EXAMPLES]


def _message(
    n: int, unit: str, units: str, problem: str, key_label: str, examples: list[str], grouped_more: bool | None = None
) -> str:
    """'<n> <units> <problem>; <key label>: <examples>'. When an example stands for several
    offending rows (grouped_more is not None), say only whether more examples exist."""
    head = f"{n} {unit if n == 1 else units} {problem}"
    if not examples:
        return head
    shown = (
        listing(examples, n) if grouped_more is None else ", ".join(examples) + (" and more" if grouped_more else "")
    )
    return f"{head}; {key_label}: {shown}"


# --------------------------------------------------------------------------------------
# The checks


def _not_null(table: str, column: str, frame_column: str | None = None) -> Rule:
    target = frame_column or column
    return Rule(
        "not_null",
        table,
        column,
        lambda: E.ExpectColumnValuesToNotBeNull(column=target),
        "row",
        "rows",
        f"with a null {column}",
        with_row=True,
    )


def _unique(table: str, columns: tuple[str, ...]) -> Rule:
    name = columns[0] if len(columns) == 1 else "(" + ", ".join(columns) + ")"

    def factory() -> Any:
        if len(columns) == 1:
            return E.ExpectColumnValuesToBeUnique(column=columns[0])
        return E.ExpectCompoundColumnsToBeUnique(column_list=list(columns))

    return Rule("unique", table, name, factory, "row", "rows", f"sharing a {name} with another row", grouped=True)


def _non_empty(table: str, column: str, length_column: str, unit: str, units: str) -> Rule:
    return Rule(
        "non_empty",
        table,
        column,
        lambda: E.ExpectColumnValuesToBeBetween(column=length_column, min_value=1),
        unit,
        units,
        f"with an empty {column}",
    )


def _clinician_count(outcome: Outcome, frame: pd.DataFrame) -> tuple[int, list[str], str]:
    n = len(frame)
    if n == 0:
        return 1, [], "no model has kind 'clinician_reference'; the contract wants exactly one clinician reference row"
    examples = [show_value(v) for v in frame["model_id"].tolist()[:N_EXAMPLES]]
    message = (
        f"{n} models have kind 'clinician_reference'; the contract wants exactly one; model_id: {listing(examples, n)}"
    )
    return n, examples, message


def _at_least_one(what: str, rule: str) -> Callable[[Outcome, pd.DataFrame], tuple[int, list[str], str]]:
    def describe(outcome: Outcome, frame: pd.DataFrame) -> tuple[int, list[str], str]:
        return 1, [], f"the release has no {what}; the contract wants {rule}"

    return describe


def frames() -> tuple[Frame, ...]:
    """Every frame GX checks, with its rules."""
    subcategories, dimensions = contract.subcategories(), contract.dimensions()
    lo, hi = contract.MIN_CRITERIA_PER_TASK, contract.MAX_CRITERIA_PER_TASK
    return (
        Frame(
            "tasks",
            ("tasks",),
            f"select {ROW}, task_id, subcategory, n_user_turns, length(reference_response) as reference_length "
            f"from tasks order by {ROW}",
            ("task_id",),
            (
                _not_null("tasks", "task_id"),
                _not_null("tasks", "subcategory"),
                _not_null("tasks", "n_user_turns"),
                _not_null("tasks", "reference_response", "reference_length"),
                _unique("tasks", ("task_id",)),
                Rule(
                    "has_tasks",
                    "tasks",
                    "task_id",
                    lambda: E.ExpectTableRowCountToBeBetween(min_value=1),
                    "task",
                    "tasks",
                    "",
                    describe=_at_least_one("task", "at least one task"),
                ),
                Rule(
                    "known_subcategory",
                    "tasks",
                    "subcategory",
                    lambda: E.ExpectColumnValuesToBeInSet(column="subcategory", value_set=list(subcategories)),
                    "task",
                    "tasks",
                    f"with a subcategory that is not one of the {len(subcategories)} in seeds/subcategories.csv",
                    show=(("subcategory", "subcategory"),),
                ),
                Rule(
                    "n_user_turns_positive",
                    "tasks",
                    "n_user_turns",
                    lambda: E.ExpectColumnValuesToBeBetween(column="n_user_turns", min_value=1),
                    "task",
                    "tasks",
                    "with n_user_turns below 1",
                    show=(("n_user_turns", "n_user_turns"),),
                ),
                _non_empty("tasks", "reference_response", "reference_length", "task", "tasks"),
            ),
        ),
        Frame(
            "turns",
            ("turns",),
            f"select {ROW}, task_id, turn_index, role, length(content) as content_length from turns order by {ROW}",
            ("task_id", "turn_index"),
            (
                _not_null("turns", "task_id"),
                _not_null("turns", "turn_index"),
                _not_null("turns", "role"),
                _not_null("turns", "content", "content_length"),
                _unique("turns", ("task_id", "turn_index")),
                Rule(
                    "known_role",
                    "turns",
                    "role",
                    lambda: E.ExpectColumnValuesToBeInSet(column="role", value_set=list(contract.TURN_ROLES)),
                    "turn",
                    "turns",
                    "with a role other than 'user' or 'assistant'",
                    show=(("role", "role"),),
                ),
                _non_empty("turns", "content", "content_length", "turn", "turns"),
            ),
        ),
        Frame(
            "criteria",
            ("criteria",),
            f"select {ROW}, criterion_id, task_id, dimension, weight, length(text) as text_length "
            f"from criteria order by {ROW}",
            ("criterion_id",),
            (
                _not_null("criteria", "criterion_id"),
                _not_null("criteria", "task_id"),
                _not_null("criteria", "dimension"),
                _not_null("criteria", "weight"),
                _not_null("criteria", "text", "text_length"),
                _unique("criteria", ("criterion_id",)),
                Rule(
                    "known_dimension",
                    "criteria",
                    "dimension",
                    lambda: E.ExpectColumnValuesToBeInSet(column="dimension", value_set=list(dimensions)),
                    "criterion",
                    "criteria",
                    f"with a dimension that is not one of the {len(dimensions)} in seeds/dimensions.csv",
                    show=(("dimension", "dimension"),),
                ),
                Rule(
                    "weight_range",
                    "criteria",
                    "weight",
                    lambda: E.ExpectColumnValuesToBeBetween(
                        column="weight", min_value=contract.MIN_WEIGHT, max_value=contract.MAX_WEIGHT
                    ),
                    "criterion",
                    "criteria",
                    f"with a weight outside {contract.MIN_WEIGHT}..{contract.MAX_WEIGHT}",
                    show=(("weight", "weight"),),
                ),
                _non_empty("criteria", "text", "text_length", "criterion", "criteria"),
            ),
        ),
        Frame(
            "criteria_per_task",
            ("tasks", "criteria"),
            "select t.task_id, coalesce(c.n_rows, 0) as n_criteria from task_keys t "
            "left join task_criteria c on c.task_id = t.task_id order by t.task_id",
            ("task_id",),
            (
                Rule(
                    "criteria_per_task",
                    "criteria",
                    "task_id",
                    lambda: E.ExpectColumnValuesToBeBetween(column="n_criteria", min_value=lo, max_value=hi),
                    "task",
                    "tasks",
                    f"with fewer than {lo} or more than {hi} criteria",
                    show=(("n_criteria", "criteria"),),
                ),
            ),
        ),
        Frame(
            "turn_order",
            ("tasks", "turns"),
            TURN_ORDER_SQL,
            ("task_id",),
            (
                Rule(
                    "task_has_turns",
                    "turns",
                    "task_id",
                    lambda: E.ExpectColumnValuesToBeBetween(column="n_turns", min_value=1),
                    "task",
                    "tasks",
                    "without any turn in turns",
                ),
                Rule(
                    "turns_contiguous",
                    "turns",
                    "turn_index",
                    lambda: E.ExpectColumnValuesToBeInSet(column="contiguous", value_set=[True]),
                    "task",
                    "tasks",
                    "whose turn_index values are not 0, 1, ..., n-1",
                    show=(("turn_indexes_json", "turn_index values"),),
                ),
                Rule(
                    "turns_alternate",
                    "turns",
                    "role",
                    lambda: E.ExpectColumnValuesToBeInSet(column="alternates", value_set=[True]),
                    "task",
                    "tasks",
                    "whose turns do not alternate between user and assistant",
                    show=(("roles_json", "roles by turn_index"),),
                ),
                Rule(
                    "turns_start_with_user",
                    "turns",
                    "role",
                    lambda: E.ExpectColumnValuesToBeInSet(column="first_role", value_set=["user"]),
                    "task",
                    "tasks",
                    "whose first turn is not a user turn",
                    show=(("first_role", "first role"),),
                ),
                Rule(
                    "turns_end_with_user",
                    "turns",
                    "role",
                    lambda: E.ExpectColumnValuesToBeInSet(column="last_role", value_set=["user"]),
                    "task",
                    "tasks",
                    "whose last turn is not a user turn",
                    show=(("last_role", "last role"),),
                ),
                Rule(
                    "user_turn_count",
                    "tasks",
                    "n_user_turns",
                    lambda: E.ExpectColumnPairValuesToBeEqual(
                        column_A="n_user_seen", column_B="n_user_turns", ignore_row_if="either_value_is_missing"
                    ),
                    "task",
                    "tasks",
                    "whose n_user_turns differs from its number of user turns in turns",
                    show=(("n_user_turns", "n_user_turns"), ("n_user_seen", "user turns")),
                ),
            ),
        ),
        Frame(
            "models",
            ("models",),
            f"select {ROW}, model_id, kind from models order by {ROW}",
            ("model_id",),
            (
                _not_null("models", "model_id"),
                _not_null("models", "kind"),
                _unique("models", ("model_id",)),
                Rule(
                    "known_kind",
                    "models",
                    "kind",
                    lambda: E.ExpectColumnValuesToBeInSet(column="kind", value_set=list(contract.MODEL_KINDS)),
                    "model",
                    "models",
                    "with a kind other than 'model' or 'clinician_reference'",
                    show=(("kind", "kind"),),
                ),
            ),
        ),
        Frame(
            "ranked_models",
            ("models",),
            f"select {ROW}, model_id from models where kind = 'model' order by {ROW}",
            ("model_id",),
            (
                Rule(
                    "has_ranked_model",
                    "models",
                    "kind",
                    lambda: E.ExpectTableRowCountToBeBetween(min_value=1),
                    "model",
                    "models",
                    "",
                    describe=_at_least_one("model of kind 'model'", "at least one ranked model (kind 'model')"),
                ),
            ),
        ),
        Frame(
            "clinician_references",
            ("models",),
            f"select {ROW}, model_id from models where kind = 'clinician_reference' order by {ROW}",
            ("model_id",),
            (
                Rule(
                    "one_clinician_reference",
                    "models",
                    "kind",
                    lambda: E.ExpectTableRowCountToEqual(value=1),
                    "model",
                    "models",
                    "",
                    describe=_clinician_count,
                ),
            ),
        ),
        Frame(
            "redteam_transcripts",
            ("redteam_transcripts",),
            f"select {ROW}, transcript_id, turn_index, role from redteam_transcripts order by {ROW}",
            ("transcript_id", "turn_index"),
            (
                _not_null("redteam_transcripts", "transcript_id"),
                _not_null("redteam_transcripts", "turn_index"),
                _not_null("redteam_transcripts", "role"),
                _unique("redteam_transcripts", ("transcript_id", "turn_index")),
                Rule(
                    "known_role",
                    "redteam_transcripts",
                    "role",
                    lambda: E.ExpectColumnValuesToBeInSet(column="role", value_set=list(contract.TURN_ROLES)),
                    "turn",
                    "turns",
                    "with a role other than 'user' or 'assistant'",
                    show=(("role", "role"),),
                ),
            ),
        ),
        Frame(
            "transcript_order",
            ("redteam_transcripts",),
            "select transcript_id, "
            "min(turn_index) = 0 and max(turn_index) = count(distinct turn_index) - 1 as contiguous, "
            "to_json(list(turn_index order by turn_index)) as turn_indexes_json from redteam_transcripts "
            "where transcript_id is not null and turn_index is not null group by transcript_id order by transcript_id",
            ("transcript_id",),
            (
                Rule(
                    "turns_contiguous",
                    "redteam_transcripts",
                    "turn_index",
                    lambda: E.ExpectColumnValuesToBeInSet(column="contiguous", value_set=[True]),
                    "transcript",
                    "transcripts",
                    "whose turn_index values are not 0, 1, ..., n-1",
                    show=(("turn_indexes_json", "turn_index values"),),
                ),
            ),
        ),
    )


TURN_ORDER_SQL = """
with t as (
    select task_id, min(n_user_turns) as n_user_turns from tasks where task_id is not null group by task_id
), d as (
    select distinct task_id, turn_index, role from turns where task_id is not null and turn_index is not null
), u as (
    select task_id, turn_index, role, lag(role) over (partition by task_id order by turn_index) as previous_role
    from d
), s as (
    select task_id, count(*) as n_turns,
           min(turn_index) = 0 and max(turn_index) = count(distinct turn_index) - 1 as contiguous,
           count(*) filter (where role = previous_role) = 0 as alternates,
           arg_min(role, turn_index) as first_role, arg_max(role, turn_index) as last_role,
           count(*) filter (where role = 'user') as n_user_seen,
           to_json(list(turn_index order by turn_index)) as turn_indexes_json,
           to_json(list(role order by turn_index)) as roles_json
    from u group by task_id
)
select t.task_id, t.n_user_turns, coalesce(s.n_turns, 0) as n_turns, s.contiguous, s.alternates,
       s.first_role, s.last_role, s.n_user_seen, s.turn_indexes_json, s.roles_json
from t left join s on s.task_id = t.task_id
order by t.task_id
"""


DERIVED: tuple[Derived, ...] = (
    Derived("task_keys", ("tasks",), "select distinct task_id from tasks where task_id is not null"),
    Derived("model_keys", ("models",), "select distinct model_id from models where model_id is not null"),
    Derived(
        "response_keys",
        ("responses",),
        "select response_id, min(task_id) as task_id from responses where response_id is not null group by response_id",
    ),
    Derived(
        "criterion_keys",
        ("criteria",),
        "select criterion_id, min(task_id) as task_id from criteria "
        "where criterion_id is not null group by criterion_id",
    ),
    Derived(
        "response_index",
        ("responses",),
        "select response_id, response_key, min(task_id) as task_id from staging.stg_release__responses "
        "where response_id is not null group by response_id, response_key",
        materialize=True,
    ),
    Derived(
        "criterion_index",
        ("criteria",),
        "select criterion_id, criterion_key, min(task_id) as task_id from staging.stg_release__criteria "
        "where criterion_id is not null group by criterion_id, criterion_key",
        materialize=True,
    ),
    Derived(
        "task_criteria",
        ("criteria",),
        "select task_id, count(*) as n_rows, count(distinct criterion_id) as n_ids from criteria "
        "where task_id is not null group by task_id",
    ),
    Derived(
        "turn_refs",
        ("turns", "tasks"),
        "select t.task_id, t.turn_index, k.task_id is not null as known from turns t "
        "left join task_keys k on k.task_id = t.task_id",
    ),
    Derived(
        "criterion_refs",
        ("criteria", "tasks"),
        "select c.criterion_id, c.task_id, k.task_id is not null as known from criteria c "
        "left join task_keys k on k.task_id = c.task_id",
    ),
    Derived(
        "response_refs",
        ("responses", "tasks", "models"),
        "select r.response_id, r.task_id, r.model_id, t.task_id is not null as task_known, "
        "m.model_id is not null as model_known from responses r "
        "left join task_keys t on t.task_id = r.task_id left join model_keys m on m.model_id = r.model_id",
    ),
    Derived(
        "response_id_dups",
        ("responses",),
        "select response_id, count(*) as n from responses where response_id is not null "
        "group by response_id having count(*) > 1",
    ),
    Derived(
        "response_pair_dups",
        ("responses",),
        "select task_id, model_id, count(*) as n from responses where task_id is not null and model_id is not null "
        "group by task_id, model_id having count(*) > 1",
    ),
    Derived(
        "missing_replies",
        ("responses", "tasks", "models"),
        "select m.model_id, t.task_id from model_keys m cross join task_keys t "
        "anti join responses r on r.model_id = m.model_id and r.task_id = t.task_id",
    ),
    Derived(
        "calibration_dups",
        ("calibration_labels",),
        "select response_id, criterion_id, annotator_id, count(*) as n from calibration_labels "
        "where response_id is not null and criterion_id is not null and annotator_id is not null "
        "group by response_id, criterion_id, annotator_id having count(*) > 1",
    ),
    Derived(
        "calibration_refs",
        ("calibration_labels", "responses", "criteria"),
        "select l.response_id, l.criterion_id, l.annotator_id, r.response_id is not null as response_known, "
        "c.criterion_id is not null as criterion_known, r.task_id as response_task, c.task_id as criterion_task "
        "from calibration_labels l left join response_keys r on r.response_id = l.response_id "
        "left join criterion_keys c on c.criterion_id = l.criterion_id",
    ),
)

# judge_labels is read once, by int_judge_labels_aggregated (dbt runs it with the staging models
# before these checks): one row per (reply, criterion, judge) with its label counts, sample
# masks, null met labels and surrogate keys (null for a null id, -1 for an id not in the
# release); label_ids adds whether the criterion is of the reply's task. Every label check
# counts on those rows. The raw file is read again only where the groups say it must be: for
# a failing check's example rows; for the null and negative sample indexes when a group has
# no sample mask (label_samples; a group holding such an index has none); and, since a
# repeated (judge, sample) shows as more labels than mask bits, for the groups that may
# repeat one (label_dups).
NO_RESPONSE_ID = "response_key is null"
NO_CRITERION_ID = "criterion_key is null"
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
    # the same in total: (reply, criterion of its task) pairs against those with a label. A
    # labelled pair is one row per judge, so with one judge the rows are the pairs; judges
    # are counted as int_verdicts_keyed counts them (the macro count_judges' SQL, written out).
    Derived(
        "label_totals",
        ("judge_labels", "responses", "criteria"),
        "with judges as (select count(distinct judge_id) + max(case when judge_id is null then 1 else 0 end) as n "
        "from label_groups), "
        "single as (select count(*) as n from label_ids where is_same_task "
        "and (select n from judges) <= 1), "
        "several as (select count(*) as n from (select distinct response_key, criterion_key from label_ids "
        "where is_same_task and (select n from judges) > 1)) "
        "select (select coalesce(sum(tc.n_ids), 0) from response_index r "
        "inner join task_criteria tc on tc.task_id = r.task_id) as n_expected, "
        "(select n from single) + (select n from several) as n_labeled",
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
DANGLING_RESPONSE = "response_key = -1 and criterion_key is not null"
DANGLING_CRITERION = "criterion_key = -1 and response_key is not null"
SAME_TASK = "is_same_task = false"
SAME_TASK_LABELS_SQL = f"""
select r.response_id, c.criterion_id, c.task_id as criterion_task, r.task_id as response_task from label_ids g
inner join response_index r on r.response_key = g.response_key
inner join criterion_index c on c.criterion_key = g.criterion_key
where {SAME_TASK} order by r.response_id, c.criterion_id limit {N_EXAMPLES}
"""


def _label_probe(
    check: str,
    column: str,
    bad: str,
    rows: str,
    raw_bad: str,
    problem: str,
    with_row: bool,
    source: str = "label_groups",
) -> Probe:
    """A check on the label groups (or on label_samples) whose examples are rows of the raw file."""
    columns = ", ".join(((ROW,) if with_row else ()) + LABEL_KEY)
    order = ROW if with_row else ", ".join(LABEL_KEY)
    return Probe(
        check,
        "judge_labels",
        column,
        ("judge_labels",),
        source,
        bad,
        LABEL_KEY,
        "judge label" if not with_row else "row",
        "judge labels" if not with_row else "rows",
        problem,
        rows=rows,
        with_row=with_row,
        examples_sql=f"select {columns} from judge_labels where {raw_bad} order by {order} limit {N_EXAMPLES}",
    )


def _null_probe(table: str, column: str, key: tuple[str, ...]) -> Probe:
    return Probe(
        "not_null",
        table,
        column,
        (table,),
        table,
        f"{column} is null",
        key,
        "row",
        "rows",
        f"with a null {column}",
        with_row=True,
    )


def probes() -> tuple[Probe, ...]:
    """Every check DuckDB evaluates on the big tables and across tables."""
    same_task_show = (("criterion_task", "criterion's task"), ("response_task", "reply's task"))
    return (
        Probe(
            "foreign_key",
            "turns",
            "task_id",
            ("turns", "tasks"),
            "turn_refs",
            "task_id is not null and not known",
            ("task_id", "turn_index"),
            "turn",
            "turns",
            "with a task_id missing from tasks",
        ),
        Probe(
            "foreign_key",
            "criteria",
            "task_id",
            ("criteria", "tasks"),
            "criterion_refs",
            "task_id is not null and not known",
            ("criterion_id",),
            "criterion",
            "criteria",
            "with a task_id missing from tasks",
            show=(("task_id", "task_id"),),
        ),
        *(_null_probe("responses", c, ("response_id",)) for c in ("response_id", "task_id", "model_id")),
        Probe(
            "unique",
            "responses",
            "response_id",
            ("responses",),
            "response_id_dups",
            "true",
            ("response_id",),
            "row",
            "rows",
            "sharing a response_id with another row",
            show=(("n", "rows"),),
            grouped=True,
            rows="sum(n)",
        ),
        Probe(
            "unique",
            "responses",
            "(task_id, model_id)",
            ("responses",),
            "response_pair_dups",
            "true",
            ("task_id", "model_id"),
            "reply",
            "replies",
            "to a (task, model) pair that has more than one reply",
            show=(("n", "replies"),),
            grouped=True,
            rows="sum(n)",
        ),
        Probe(
            "foreign_key",
            "responses",
            "task_id",
            ("responses", "tasks", "models"),
            "response_refs",
            "task_id is not null and not task_known",
            ("response_id",),
            "reply",
            "replies",
            "with a task_id missing from tasks",
            show=(("task_id", "task_id"),),
        ),
        Probe(
            "foreign_key",
            "responses",
            "model_id",
            ("responses", "tasks", "models"),
            "response_refs",
            "model_id is not null and not model_known",
            ("response_id",),
            "reply",
            "replies",
            "with a model_id missing from models",
            show=(("model_id", "model_id"),),
        ),
        Probe(
            "responses_complete",
            "responses",
            "(task_id, model_id)",
            ("responses", "tasks", "models"),
            "missing_replies",
            "true",
            ("model_id", "task_id"),
            "(model, task) pair",
            "(model, task) pairs",
            "without a reply in responses",
        ),
        _label_probe(
            "not_null",
            "response_id",
            NO_RESPONSE_ID,
            "sum(n_labels)",
            "response_id is null",
            "with a null response_id",
            True,
        ),
        _label_probe(
            "not_null",
            "criterion_id",
            NO_CRITERION_ID,
            "sum(n_labels)",
            "criterion_id is null",
            "with a null criterion_id",
            True,
        ),
        _label_probe(
            "not_null",
            "judge_id",
            "judge_id is null",
            "sum(n_labels)",
            "judge_id is null",
            "with a null judge_id",
            True,
        ),
        _label_probe(
            "not_null",
            "sample_index",
            "n_null_sample_index > 0",
            "sum(n_null_sample_index)",
            "sample_index is null",
            "with a null sample_index",
            True,
            source="label_samples",
        ),
        _label_probe("not_null", "met", "n_null_met > 0", "sum(n_null_met)", "met is null", "with a null met", True),
        _label_probe(
            "sample_index_non_negative",
            "sample_index",
            "n_negative_sample_index > 0",
            "sum(n_negative_sample_index)",
            "sample_index < 0",
            "with a negative sample_index",
            False,
            source="label_samples",
        ),
        Probe(
            "unique",
            "judge_labels",
            "(" + ", ".join(LABEL_KEY) + ")",
            ("judge_labels",),
            "label_dups",
            "true",
            LABEL_KEY,
            "row",
            "rows",
            "repeating the (response_id, criterion_id, judge_id, sample_index) of another row",
            show=(("n", "rows with that key"),),
            grouped=True,
            rows="sum(n - 1)",
        ),
        Probe(
            "foreign_key",
            "judge_labels",
            "response_id",
            ("judge_labels", "responses", "criteria"),
            "label_groups",
            DANGLING_RESPONSE,
            ("response_id", "criterion_id"),
            "judge label",
            "judge labels",
            "with a response_id missing from responses",
            show=(("n_labels", "labels"),),
            grouped=True,
            rows="sum(n_labels)",
            examples_sql=DANGLING_LABELS_SQL.format(index="response_index", column="response_id"),
        ),
        Probe(
            "foreign_key",
            "judge_labels",
            "criterion_id",
            ("judge_labels", "responses", "criteria"),
            "label_groups",
            DANGLING_CRITERION,
            ("response_id", "criterion_id"),
            "judge label",
            "judge labels",
            "with a criterion_id missing from criteria",
            show=(("n_labels", "labels"),),
            grouped=True,
            rows="sum(n_labels)",
            examples_sql=DANGLING_LABELS_SQL.format(index="criterion_index", column="criterion_id"),
        ),
        Probe(
            "same_task",
            "judge_labels",
            "criterion_id",
            ("judge_labels", "responses", "criteria"),
            "label_ids",
            SAME_TASK,
            ("response_id", "criterion_id"),
            "judge label",
            "judge labels",
            "on a criterion of another task than the reply's",
            show=same_task_show,
            grouped=True,
            rows="sum(n_labels)",
            examples_sql=SAME_TASK_LABELS_SQL,
        ),
        Probe(
            "labels_complete",
            "judge_labels",
            "(response_id, criterion_id)",
            ("judge_labels", "responses", "criteria"),
            "label_totals",
            "n_labeled < n_expected",
            ("response_id", "criterion_id"),
            "(reply, criterion of its task) pair",
            "(reply, criterion of its task) pairs",
            "without any judge label",
            rows="sum(n_expected - n_labeled)",
            examples_sql=MISSING_LABELS_SQL,
        ),
        *(_null_probe("calibration_labels", c, CALIBRATION_KEY) for c in CALIBRATION_KEY + ("met",)),
        Probe(
            "unique",
            "calibration_labels",
            "(" + ", ".join(CALIBRATION_KEY) + ")",
            ("calibration_labels",),
            "calibration_dups",
            "true",
            CALIBRATION_KEY,
            "row",
            "rows",
            "sharing a (response_id, criterion_id, annotator_id) with another row",
            show=(("n", "rows"),),
            grouped=True,
            rows="sum(n)",
        ),
        Probe(
            "foreign_key",
            "calibration_labels",
            "response_id",
            ("calibration_labels", "responses", "criteria"),
            "calibration_refs",
            "response_id is not null and not response_known",
            CALIBRATION_KEY,
            "calibration label",
            "calibration labels",
            "with a response_id missing from responses",
        ),
        Probe(
            "foreign_key",
            "calibration_labels",
            "criterion_id",
            ("calibration_labels", "responses", "criteria"),
            "calibration_refs",
            "criterion_id is not null and not criterion_known",
            CALIBRATION_KEY,
            "calibration label",
            "calibration labels",
            "with a criterion_id missing from criteria",
        ),
        Probe(
            "same_task",
            "calibration_labels",
            "criterion_id",
            ("calibration_labels", "responses", "criteria"),
            "calibration_refs",
            "response_known and criterion_known and response_task is distinct from criterion_task",
            CALIBRATION_KEY,
            "calibration label",
            "calibration labels",
            "on a criterion of another task than the reply's",
            show=same_task_show,
        ),
    )


# --------------------------------------------------------------------------------------
# Running them


@dataclass
class _Session:
    con: duckdb.DuckDBPyConnection
    valid: set[str]
    rec: Recorder
    gx: GxRunner
    broken: dict[str, str] = field(default_factory=dict)  # derived view -> DuckDB error


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


def check_values(
    con: duckdb.DuckDBPyConnection,
    release_dir: Path,
    valid_tables: dict[str, Path],
    rec: Recorder,
    gx_runner: GxRunner,
    unreadable: dict[str, str] | None = None,
) -> None:
    """Stage 3 over the tables that passed stage 2 and that dbt built into `con`.
    A table in `unreadable` (its file's data could not be read: table -> error) fails every
    check that reads it."""
    all_frames, all_probes = frames(), probes()
    runnable_frames = [f for f in all_frames if set(f.needs) <= set(valid_tables)]
    runnable_probes = [p for p in all_probes if set(p.needs) <= set(valid_tables)]
    present = set(contract.release_files(release_dir))
    _report_skips(all_frames, all_probes, valid_tables, present, rec)
    if not runnable_frames and not runnable_probes:
        return
    unreadable = unreadable or {}
    for table in valid_tables:
        if table not in unreadable:
            con.execute(f"create or replace temp view {table} as {RAW_VIEWS[table]}")
    session = _Session(con, set(valid_tables), rec, gx_runner, broken=dict(unreadable))
    _derive(session)
    for frame in runnable_frames:
        _run_frame(session, frame)
    _run_probes(session, runnable_probes)


def _report_skips(
    all_frames: Iterable[Frame], all_probes: Iterable[Probe], valid: dict[str, Path], present: set[str], rec: Recorder
) -> None:
    """One SKIP line per set of unusable tables; an absent optional annex is no reason to say anything."""
    by_missing: dict[tuple[str, ...], list[str]] = {}
    for needs, labels in [(f.needs, [f"{r.check} {r.table}.{r.column}" for r in f.rules]) for f in all_frames] + [
        (p.needs, [f"{p.check} {p.table}.{p.column}"]) for p in all_probes
    ]:
        missing = tuple(t for t in needs if t not in valid)
        if any(t in present or t in contract.REQUIRED_TABLES for t in missing):
            by_missing.setdefault(missing, []).extend(labels)
    for missing, labels in by_missing.items():
        tables = ", ".join(missing)
        what = f"{len(labels)} value check{'s' if len(labels) != 1 else ''} reading {tables}"
        rec.skip(what, f"{tables} did not pass the file, schema and readability checks", labels)


def _derive(session: _Session) -> None:
    _create(session, DERIVED)
    _create(session, LABEL_VIEWS)
    _derive_labels(session)


def _create(session: _Session, views: Iterable[Derived]) -> None:
    for view in views:
        if not set(view.needs) <= session.valid:
            continue
        broken = [t for t in view.needs if t in session.broken] + [d for d in session.broken if d in view.sql]
        if broken:
            session.broken[view.name] = session.broken[broken[0]]
            continue
        kind = "temp table" if view.materialize else "temp view"
        try:
            session.con.execute(f"create {kind} {view.name} as {view.sql}")
        except duckdb.Error as error:
            session.broken[view.name] = f"{type(error).__name__}: {error}"


def _derive_labels(session: _Session) -> None:
    """label_samples: the labels with a null or a negative sample_index, counted in the raw
    file only when some group has no sample mask (else there are none). label_dups: the
    repeated full label keys, read exactly from the raw file only for the groups whose counts
    say they may hold one (see DUP_CANDIDATE)."""
    con = session.con
    if "judge_labels" not in session.valid or "label_groups" in session.broken:
        return
    try:
        (unmasked,) = con.execute(f"select count(*) from label_groups where {NO_SAMPLE_MASK}").fetchone() or (0,)
        counted = f"select {SAMPLE_COUNTS} from judge_labels" + ("" if unmasked else " where false")  # 0, 0
        con.execute(f"create temp table label_samples as {counted}")
    except duckdb.Error as error:
        session.broken["label_samples"] = f"{type(error).__name__}: {error}"
    try:
        (candidates,) = con.execute(f"select count(*) from label_groups where {DUP_CANDIDATE}").fetchone() or (0,)
        if not candidates:
            sql = f"{LABEL_DUP_KEYS_UNKEYED} limit 0"
        elif (
            "label_ids" in session.broken
            or not {"responses", "criteria"} <= session.valid
            or con.execute(
                f"select count(*) from label_groups where {DUP_CANDIDATE} and (response_key = -1 or criterion_key = -1)"
            ).fetchone()
            != (0,)
        ):
            sql = LABEL_DUP_KEYS_UNKEYED  # exact, over every label (ids not in the release have no key)
        else:
            sql = LABEL_DUP_KEYS.format(candidate=DUP_CANDIDATE)
        con.execute(f"create temp table label_dups as {sql}")
    except duckdb.Error as error:
        session.broken["label_dups"] = f"{type(error).__name__}: {error}"


def _fail_all(session: _Session, checks: Iterable[tuple[str, str, str]], needs: tuple[str, ...], error: str) -> None:
    """Checks DuckDB could not evaluate (a file whose footer reads but whose data does not)."""
    files = ", ".join(contract.file_name(t) for t in needs)
    for check, table, column in checks:
        session.rec.failed(
            check,
            STAGE,
            table,
            column,
            1,
            [],
            f"could not be evaluated: reading {files} failed, is one of them corrupt? ({error})",
        )


def _run_frame(session: _Session, frame: Frame) -> None:
    unreadable = [session.broken[t] for t in frame.needs if t in session.broken]
    if unreadable:
        _fail_all(session, [(r.check, r.table, r.column) for r in frame.rules], frame.needs, unreadable[0])
        return
    try:
        data = session.con.execute(frame.sql).df()
    except duckdb.Error as error:
        _fail_all(
            session,
            [(r.check, r.table, r.column) for r in frame.rules],
            frame.needs,
            f"{type(error).__name__}: {error}",
        )
        return
    outcomes = session.gx.validate(data, [rule.expectation() for rule in frame.rules])
    for rule, outcome in zip(frame.rules, outcomes, strict=True):
        _record_rule(session.rec, frame, rule, outcome, data)


def _record_rule(rec: Recorder, frame: Frame, rule: Rule, outcome: Outcome, data: pd.DataFrame) -> None:
    if outcome.error is not None:
        rec.failed(
            rule.check,
            STAGE,
            rule.table,
            rule.column,
            1,
            [],
            f"Great Expectations could not evaluate it: {outcome.error}",
        )
        return
    if outcome.success:
        rec.passed(rule.check, STAGE, rule.table, rule.column)
        return
    if rule.describe is not None:
        n, examples, message = rule.describe(outcome, data)
    else:
        rows = [data.loc[i].to_dict() for i in outcome.unexpected_index]
        examples = _examples(rows, frame.key, rule.show, rule.with_row)
        n = int(outcome.unexpected_count or len(rows))
        label = _key_label(frame.key, rule.show, rule.with_row)
        more = n > len(rows) if rule.grouped else None
        message = _message(n, rule.unit, rule.units, rule.problem, label, examples, more)
    rec.failed(rule.check, STAGE, rule.table, rule.column, n, examples, message)


def _run_probes(session: _Session, runnable: list[Probe]) -> None:
    """Count each probe's offending rows in DuckDB (one query per source), let GX judge the
    counts (a frame with one row per probe; every count must be 0), then fetch example keys
    for the probes that fail."""
    by_source: dict[str, list[Probe]] = {}
    for probe in runnable:
        unreadable = [session.broken[t] for t in probe.needs if t in session.broken]
        if unreadable:
            _fail_all(session, [(probe.check, probe.table, probe.column)], probe.needs, unreadable[0])
            continue
        by_source.setdefault(probe.source, []).append(probe)
    counted: list[tuple[Probe, int]] = []
    for source, group in by_source.items():
        if source in session.broken:
            _fail_all(session, [(p.check, p.table, p.column) for p in group], group[0].needs, session.broken[source])
            continue
        counts_sql = (
            "select "
            + ", ".join(f"coalesce({p.rows} filter (where {p.bad}), 0) as c{i}" for i, p in enumerate(group))
            + f" from {source}"
        )
        try:
            counts = session.con.execute(counts_sql).fetchone() or tuple(0 for _ in group)
        except duckdb.Error as error:
            _fail_all(
                session,
                [(p.check, p.table, p.column) for p in group],
                group[0].needs,
                f"{type(error).__name__}: {error}",
            )
            continue
        counted.extend(zip(group, (int(c) for c in counts), strict=True))
    if not counted:
        return
    frame = pd.DataFrame(
        {
            "check": [f"{p.check} {p.table}.{p.column}" for p, _ in counted],
            "offending_rows": [count for _, count in counted],
        }
    )
    (outcome,) = session.gx.validate(
        frame,
        [E.ExpectColumnValuesToBeBetween(column="offending_rows", min_value=0, max_value=0)],
        n_examples=len(frame),
    )
    failing = set(outcome.unexpected_index) if outcome.error is None else set(range(len(counted)))
    for i, (probe, count) in enumerate(counted):
        if outcome.error is not None:
            session.rec.failed(
                probe.check,
                STAGE,
                probe.table,
                probe.column,
                1,
                [],
                f"Great Expectations could not evaluate it: {outcome.error}",
            )
        elif i in failing:
            _record_offenders(session, probe, count)
        else:
            session.rec.passed(probe.check, STAGE, probe.table, probe.column)


def _record_offenders(session: _Session, probe: Probe, count: int) -> None:
    columns = list(dict.fromkeys(probe.key + tuple(c for c, _ in probe.show) + ((ROW,) if probe.with_row else ())))
    order = ROW if probe.with_row else ", ".join(probe.key)
    sql = probe.examples_sql or (
        f"select {', '.join(columns)} from {probe.source} where {probe.bad} order by {order} limit {N_EXAMPLES}"
    )
    try:
        rows = session.con.execute(sql).df().to_dict("records")
    except duckdb.Error as error:
        rows = []
        note = f" (example keys could not be read: {type(error).__name__}: {error})"
    else:
        note = ""
    examples = _examples(rows, probe.key, probe.show, probe.with_row)
    label = _key_label(probe.key, probe.show, probe.with_row)
    session.rec.failed(
        probe.check,
        STAGE,
        probe.table,
        probe.column,
        count,
        examples,
        _message(
            count,
            probe.unit,
            probe.units,
            probe.problem,
            label,
            examples,
            len(rows) >= N_EXAMPLES if probe.grouped else None,
        )
        + note,
    )
