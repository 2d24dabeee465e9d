"""The gate's value rules, as data: one list that the checks (distressbench.gate.values) run
and the contract's docs (docs/release-contract.md, the section `markdown()` writes) state.

Two kinds of rule:

- a `Rule` is a Great Expectations expectation (its class name and arguments) on a `Frame`,
  a small pandas frame DuckDB builds from valid tables (the small tables themselves, or a
  per-task or per-transcript profile);
- a `Probe` is a count of offending rows DuckDB makes on a big table or across tables (a SQL
  predicate over a source view, distressbench.gate.views); GX expects every count to be 0.

Each carries the sentence of the contract it enforces, and what a failure message says:
'<n> <unit|units> <problem>; <key> (<shown columns>): <example keys>'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from distressbench.gate import views
from distressbench.gate.results import N_EXAMPLES
from distressbench.gate.views import ROW
from distressbench.release import contract

LABEL_KEY = ("response_id", "criterion_id", "judge_id", "sample_index")
CALIBRATION_KEY = ("response_id", "criterion_id", "annotator_id")
Shown = tuple[tuple[str, str], ...]  # (frame column, label) pairs shown after an example key


@dataclass(frozen=True)
class Rule:
    """One GX expectation on a frame, reported as one check. `absent` and `excess` replace the
    row-by-row message of a rule on the frame's row count: `absent` when the frame has no
    row, '<n> <units> <excess>; <key>: <examples>' when it has too many."""

    check: str
    table: str
    column: str
    expectation: str  # a class of great_expectations.expectations
    args: tuple[tuple[str, Any], ...]
    sentence: str
    unit: str
    units: str
    problem: str
    show: Shown = ()
    with_row: bool = False  # name the file row (for null checks, where the key may be null)
    grouped: bool = False  # several failing rows share one example key (duplicates)
    absent: str | None = None
    excess: str | None = None


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
    """Offending rows DuckDB counts in `source` where `bad` holds; GX expects zero."""

    check: str
    table: str
    column: str
    needs: tuple[str, ...]
    source: str  # a registered table or a derived view
    bad: str  # SQL predicate over `source` (constant text, never data)
    key: tuple[str, ...]
    sentence: str
    unit: str
    units: str
    problem: str
    show: Shown = ()
    rows: str = "count(*)"  # SQL aggregate: how many rows of `table` offend
    with_row: bool = False
    examples_sql: str | None = None  # overrides 'select key from source where bad limit 20'
    grouped: bool = False  # an example stands for several offending rows (its count is shown)


def _not_null(table: str, column: str, frame_column: str | None = None) -> Rule:
    return Rule(
        "not_null",
        table,
        column,
        "ExpectColumnValuesToNotBeNull",
        (("column", frame_column or column),),
        f"`{column}` is never null",
        "row",
        "rows",
        f"with a null {column}",
        with_row=True,
    )


def _unique(table: str, columns: tuple[str, ...]) -> Rule:
    name = columns[0] if len(columns) == 1 else "(" + ", ".join(columns) + ")"
    expectation, args = (
        ("ExpectColumnValuesToBeUnique", (("column", columns[0]),))
        if len(columns) == 1
        else ("ExpectCompoundColumnsToBeUnique", (("column_list", columns),))
    )
    return Rule(
        "unique",
        table,
        name,
        expectation,
        args,
        f"`{name}` is unique",
        "row",
        "rows",
        f"sharing a {name} with another row",
        grouped=True,
    )


def _non_empty(table: str, column: str, length_column: str, unit: str, units: str) -> Rule:
    return Rule(
        "non_empty",
        table,
        column,
        "ExpectColumnValuesToBeBetween",
        (("column", length_column), ("min_value", 1)),
        f"`{column}` is non-empty",
        unit,
        units,
        f"with an empty {column}",
    )


def _in_set(
    check: str,
    table: str,
    column: str,
    values: tuple[Any, ...],
    sentence: str,
    unit: str,
    units: str,
    problem: str,
    frame_column: str | None = None,
    show: Shown | None = None,
) -> Rule:
    target = frame_column or column
    return Rule(
        check,
        table,
        column,
        "ExpectColumnValuesToBeInSet",
        (("column", target), ("value_set", values)),
        sentence,
        unit,
        units,
        problem,
        show=((target, target),) if show is None else show,
    )


def _role(table: str, units: str) -> Rule:
    return _in_set(
        "known_role",
        table,
        "role",
        contract.TURN_ROLES,
        "`role` is `user` or `assistant`",
        "turn",
        units,
        "with a role other than 'user' or 'assistant'",
    )


def _contiguous(table: str, unit: str, units: str, per: str) -> Rule:
    return _in_set(
        "turns_contiguous",
        table,
        "turn_index",
        (True,),
        f"`turn_index` is 0, 1, ..., n-1 per {per}",
        unit,
        units,
        "whose turn_index values are not 0, 1, ..., n-1",
        "contiguous",
        (("turn_indexes_json", "turn_index values"),),
    )


def _frames() -> tuple[Frame, ...]:
    subcategories, dimensions = contract.subcategories(), contract.dimensions()
    lo, hi = contract.MIN_CRITERIA_PER_TASK, contract.MAX_CRITERIA_PER_TASK
    low_weight, high_weight = contract.MIN_WEIGHT, contract.MAX_WEIGHT
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
                    "ExpectTableRowCountToBeBetween",
                    (("min_value", 1),),
                    "a release has at least one task",
                    "task",
                    "tasks",
                    "",
                    absent="the release has no task; the contract wants at least one task",
                ),
                _in_set(
                    "known_subcategory",
                    "tasks",
                    "subcategory",
                    subcategories,
                    f"`subcategory` is one of the {len(subcategories)} ids in seeds/subcategories.csv",
                    "task",
                    "tasks",
                    f"with a subcategory that is not one of the {len(subcategories)} in seeds/subcategories.csv",
                ),
                Rule(
                    "n_user_turns_positive",
                    "tasks",
                    "n_user_turns",
                    "ExpectColumnValuesToBeBetween",
                    (("column", "n_user_turns"), ("min_value", 1)),
                    "`n_user_turns` is at least 1",
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
                _role("turns", "turns"),
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
                _in_set(
                    "known_dimension",
                    "criteria",
                    "dimension",
                    dimensions,
                    f"`dimension` is one of the {len(dimensions)} ids in seeds/dimensions.csv",
                    "criterion",
                    "criteria",
                    f"with a dimension that is not one of the {len(dimensions)} in seeds/dimensions.csv",
                ),
                Rule(
                    "weight_range",
                    "criteria",
                    "weight",
                    "ExpectColumnValuesToBeBetween",
                    (("column", "weight"), ("min_value", low_weight), ("max_value", high_weight)),
                    f"`weight` is in {low_weight}..{high_weight}",
                    "criterion",
                    "criteria",
                    f"with a weight outside {low_weight}..{high_weight}",
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
                    "ExpectColumnValuesToBeBetween",
                    (("column", "n_criteria"), ("min_value", lo), ("max_value", hi)),
                    f"every task has {lo} to {hi} criteria, both ends included",
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
            views.TURN_ORDER_SQL,
            ("task_id",),
            (
                Rule(
                    "task_has_turns",
                    "turns",
                    "task_id",
                    "ExpectColumnValuesToBeBetween",
                    (("column", "n_turns"), ("min_value", 1)),
                    "every task has at least one turn",
                    "task",
                    "tasks",
                    "without any turn in turns",
                ),
                _contiguous("turns", "task", "tasks", "task"),
                _in_set(
                    "turns_alternate",
                    "turns",
                    "role",
                    (True,),
                    "roles alternate between `user` and `assistant`",
                    "task",
                    "tasks",
                    "whose turns do not alternate between user and assistant",
                    "alternates",
                    (("roles_json", "roles by turn_index"),),
                ),
                _in_set(
                    "turns_start_with_user",
                    "turns",
                    "role",
                    ("user",),
                    "a task's first turn is `user`",
                    "task",
                    "tasks",
                    "whose first turn is not a user turn",
                    "first_role",
                    (("first_role", "first role"),),
                ),
                _in_set(
                    "turns_end_with_user",
                    "turns",
                    "role",
                    ("user",),
                    "a task's last turn is `user`",
                    "task",
                    "tasks",
                    "whose last turn is not a user turn",
                    "last_role",
                    (("last_role", "last role"),),
                ),
                Rule(
                    "user_turn_count",
                    "tasks",
                    "n_user_turns",
                    "ExpectColumnPairValuesToBeEqual",
                    (
                        ("column_A", "n_user_seen"),
                        ("column_B", "n_user_turns"),
                        ("ignore_row_if", "either_value_is_missing"),
                    ),
                    "a task's count of `user` turns equals its `n_user_turns`",
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
                _in_set(
                    "known_kind",
                    "models",
                    "kind",
                    contract.MODEL_KINDS,
                    "`kind` is `model` or `clinician_reference`",
                    "model",
                    "models",
                    "with a kind other than 'model' or 'clinician_reference'",
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
                    "ExpectTableRowCountToBeBetween",
                    (("min_value", 1),),
                    "a release has at least one model of kind `model`",
                    "model",
                    "models",
                    "",
                    absent="the release has no model of kind 'model'; "
                    "the contract wants at least one ranked model (kind 'model')",
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
                    "ExpectTableRowCountToEqual",
                    (("value", 1),),
                    "exactly one model is of kind `clinician_reference`",
                    "model",
                    "models",
                    "",
                    absent="no model has kind 'clinician_reference'; "
                    "the contract wants exactly one clinician reference row",
                    excess="have kind 'clinician_reference'; the contract wants exactly one",
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
                _role("redteam_transcripts", "turns"),
            ),
        ),
        Frame(
            "transcript_order",
            ("redteam_transcripts",),
            views.TRANSCRIPT_ORDER_SQL,
            ("transcript_id",),
            (_contiguous("redteam_transcripts", "transcript", "transcripts", "transcript"),),
        ),
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
        f"`{column}` is never null",
        "row",
        "rows",
        f"with a null {column}",
        with_row=True,
    )


def _label_probe(
    check: str,
    column: str,
    bad: str,
    rows: str,
    raw_bad: str,
    sentence: str,
    problem: str,
    with_row: bool,
    source: str = "label_groups",
) -> Probe:
    """A rule counted on the label groups (or on label_samples) whose examples are raw file rows."""
    columns = ", ".join(((ROW,) if with_row else ()) + LABEL_KEY)
    order = ROW if with_row else ", ".join(LABEL_KEY)
    unit, units = ("row", "rows") if with_row else ("judge label", "judge labels")
    return Probe(
        check,
        "judge_labels",
        column,
        ("judge_labels",),
        source,
        bad,
        LABEL_KEY,
        sentence,
        unit,
        units,
        problem,
        rows=rows,
        with_row=with_row,
        examples_sql=f"select {columns} from judge_labels where {raw_bad} order by {order} limit {N_EXAMPLES}",
    )


def _label_null(column: str, bad: str, rows: str, source: str = "label_groups") -> Probe:
    return _label_probe(
        "not_null",
        column,
        bad,
        rows,
        f"{column} is null",
        f"`{column}` is never null",
        f"with a null {column}",
        True,
        source,
    )


def _duplicates(
    table: str,
    key: tuple[str, ...],
    source: str,
    unit: str,
    units: str,
    problem: str,
    shown: str,
    rows: str = "sum(n)",
    column: str | None = None,
) -> Probe:
    name = column or (key[0] if len(key) == 1 else "(" + ", ".join(key) + ")")
    return Probe(
        "unique",
        table,
        name,
        (table,),
        source,
        "true",
        key,
        f"`{name}` is unique",
        unit,
        units,
        problem,
        show=(("n", shown),),
        grouped=True,
        rows=rows,
    )


def _reference(
    table: str,
    column: str,
    target: str,
    needs: tuple[str, ...],
    source: str,
    bad: str,
    key: tuple[str, ...],
    unit: str,
    units: str,
    **extra: Any,
) -> Probe:
    return Probe(
        "foreign_key",
        table,
        column,
        needs,
        source,
        bad,
        key,
        f"`{column}` → {target}",
        unit,
        units,
        f"with a {column} missing from {target}",
        **extra,
    )


_BOTH_TASKS: Shown = (("criterion_task", "criterion's task"), ("response_task", "reply's task"))
_LABEL_READS = ("judge_labels", "responses", "criteria")
_REPLY_READS = ("responses", "tasks", "models")
_CALIBRATION_READS = ("calibration_labels", "responses", "criteria")


def _probes() -> tuple[Probe, ...]:
    return (
        _reference(
            "turns",
            "task_id",
            "tasks",
            ("turns", "tasks"),
            "turn_refs",
            "task_id is not null and not known",
            ("task_id", "turn_index"),
            "turn",
            "turns",
        ),
        _reference(
            "criteria",
            "task_id",
            "tasks",
            ("criteria", "tasks"),
            "criterion_refs",
            "task_id is not null and not known",
            ("criterion_id",),
            "criterion",
            "criteria",
            show=(("task_id", "task_id"),),
        ),
        *(_null_probe("responses", c, ("response_id",)) for c in ("response_id", "task_id", "model_id")),
        _duplicates(
            "responses",
            ("response_id",),
            "response_id_dups",
            "row",
            "rows",
            "sharing a response_id with another row",
            "rows",
        ),
        _duplicates(
            "responses",
            ("task_id", "model_id"),
            "response_pair_dups",
            "reply",
            "replies",
            "to a (task, model) pair that has more than one reply",
            "replies",
        ),
        _reference(
            "responses",
            "task_id",
            "tasks",
            _REPLY_READS,
            "response_refs",
            "task_id is not null and not task_known",
            ("response_id",),
            "reply",
            "replies",
            show=(("task_id", "task_id"),),
        ),
        _reference(
            "responses",
            "model_id",
            "models",
            _REPLY_READS,
            "response_refs",
            "model_id is not null and not model_known",
            ("response_id",),
            "reply",
            "replies",
            show=(("model_id", "model_id"),),
        ),
        Probe(
            "responses_complete",
            "responses",
            "(task_id, model_id)",
            _REPLY_READS,
            "missing_replies",
            "true",
            ("model_id", "task_id"),
            "every model replies to every task",
            "(model, task) pair",
            "(model, task) pairs",
            "without a reply in responses",
        ),
        _label_null("response_id", views.NO_RESPONSE_ID, "sum(n_labels)"),
        _label_null("criterion_id", views.NO_CRITERION_ID, "sum(n_labels)"),
        _label_null("judge_id", "judge_id is null", "sum(n_labels)"),
        _label_null("sample_index", "n_null_sample_index > 0", "sum(n_null_sample_index)", "label_samples"),
        _label_null("met", "n_null_met > 0", "sum(n_null_met)"),
        _label_probe(
            "sample_index_non_negative",
            "sample_index",
            "n_negative_sample_index > 0",
            "sum(n_negative_sample_index)",
            "sample_index < 0",
            "`sample_index` is at least 0",
            "with a negative sample_index",
            False,
            source="label_samples",
        ),
        _duplicates(
            "judge_labels",
            LABEL_KEY,
            "label_dups",
            "row",
            "rows",
            "repeating the (response_id, criterion_id, judge_id, sample_index) of another row",
            "rows with that key",
            rows="sum(n - 1)",
        ),
        _reference(
            "judge_labels",
            "response_id",
            "responses",
            _LABEL_READS,
            "label_groups",
            views.DANGLING_RESPONSE,
            ("response_id", "criterion_id"),
            "judge label",
            "judge labels",
            show=(("n_labels", "labels"),),
            grouped=True,
            rows="sum(n_labels)",
            examples_sql=views.DANGLING_LABELS_SQL.format(index="response_index", column="response_id"),
        ),
        _reference(
            "judge_labels",
            "criterion_id",
            "criteria",
            _LABEL_READS,
            "label_groups",
            views.DANGLING_CRITERION,
            ("response_id", "criterion_id"),
            "judge label",
            "judge labels",
            show=(("n_labels", "labels"),),
            grouped=True,
            rows="sum(n_labels)",
            examples_sql=views.DANGLING_LABELS_SQL.format(index="criterion_index", column="criterion_id"),
        ),
        Probe(
            "same_task",
            "judge_labels",
            "criterion_id",
            _LABEL_READS,
            "label_ids",
            views.SAME_TASK,
            ("response_id", "criterion_id"),
            "a label's criterion is one of its reply's task",
            "judge label",
            "judge labels",
            "on a criterion of another task than the reply's",
            show=_BOTH_TASKS,
            grouped=True,
            rows="sum(n_labels)",
            examples_sql=views.SAME_TASK_LABELS_SQL,
        ),
        Probe(
            "labels_complete",
            "judge_labels",
            "(response_id, criterion_id)",
            _LABEL_READS,
            "label_totals",
            "n_labeled < n_expected",
            ("response_id", "criterion_id"),
            "every (reply, criterion of its task) pair has at least one label",
            "(reply, criterion of its task) pair",
            "(reply, criterion of its task) pairs",
            "without any judge label",
            rows="sum(n_expected - n_labeled)",
            examples_sql=views.MISSING_LABELS_SQL,
        ),
        *(_null_probe("calibration_labels", c, CALIBRATION_KEY) for c in (*CALIBRATION_KEY, "met")),
        _duplicates(
            "calibration_labels",
            CALIBRATION_KEY,
            "calibration_dups",
            "row",
            "rows",
            "sharing a (response_id, criterion_id, annotator_id) with another row",
            "rows",
        ),
        _reference(
            "calibration_labels",
            "response_id",
            "responses",
            _CALIBRATION_READS,
            "calibration_refs",
            "response_id is not null and not response_known",
            CALIBRATION_KEY,
            "calibration label",
            "calibration labels",
        ),
        _reference(
            "calibration_labels",
            "criterion_id",
            "criteria",
            _CALIBRATION_READS,
            "calibration_refs",
            "criterion_id is not null and not criterion_known",
            CALIBRATION_KEY,
            "calibration label",
            "calibration labels",
        ),
        Probe(
            "same_task",
            "calibration_labels",
            "criterion_id",
            _CALIBRATION_READS,
            "calibration_refs",
            "response_known and criterion_known and response_task is distinct from criterion_task",
            CALIBRATION_KEY,
            "a label's criterion is one of its reply's task",
            "calibration label",
            "calibration labels",
            "on a criterion of another task than the reply's",
            show=_BOTH_TASKS,
        ),
    )


FRAMES: tuple[Frame, ...] = _frames()
PROBES: tuple[Probe, ...] = _probes()

DOCS_START = "<!-- value rules: generated from src/distressbench/gate/rules.py -->"
DOCS_END = "<!-- end of value rules -->"


def statements() -> list[tuple[str, str, str]]:
    """(table, 'check table.column', sentence) of every rule, frames first, in the gate's order."""
    found = [(r.table, f"{r.check} {r.table}.{r.column}", r.sentence) for f in FRAMES for r in f.rules]
    return found + [(p.table, f"{p.check} {p.table}.{p.column}", p.sentence) for p in PROBES]


def markdown() -> str:
    """The docs' section between DOCS_START and DOCS_END: per table, each rule's sentence and
    the gate check that enforces it (the check as a code span; sentences are this module's)."""
    lines = [DOCS_START, ""]
    for table in contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES:
        rules = [(label, sentence) for owner, label, sentence in statements() if owner == table]
        lines += [f"**{table}**", ""] + [f"- {_escape(sentence)} (`{label}`)" for label, sentence in rules] + [""]
    return "\n".join([*lines, DOCS_END])


def _escape(text: str) -> str:
    """Markdown's emphasis and link characters escaped outside code spans (`...`)."""
    parts = text.split("`")
    return "`".join(
        part if i % 2 else "".join("\\" + c if c in "\\*_[]<>|#" else c for c in part) for i, part in enumerate(parts)
    )


if __name__ == "__main__":
    print(markdown())
