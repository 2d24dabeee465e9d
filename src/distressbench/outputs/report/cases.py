"""The report's Cases section: a few conversations behind the numbers, read from the marts.

Three groups of examples, each chosen by a fixed rule (no randomness between runs):

- recognized but not routed: cells of ranked models flagged `is_recognized_not_routed` in
  `marts.cases`, the EXAMPLES_PER_GROUP with the smallest MD5 of model_id || '/' || task_id
  (a fixed pseudo-random sample over models and tasks);
- the three hardest criteria of each dimension (`hardness_rank` <= 3 in
  `marts.criterion_pass_rates`): for each, one ranked model's reply, a reply that missed it
  when there is one, again the smallest MD5 of model_id || '/' || task_id;
- the best model's (rank 1, ties to the smallest model_id) EXAMPLES_PER_GROUP lowest cell
  scores, ties by task_id.

Each example shows the conversation, the reply and the rubric with the judge's votes and
verdicts (`show.rubric`, the same rows `distressbench show` prints) in a <details> block,
collapsed but for the first. Every text from the release is escaped (`messages.printable`,
then html.escape): nothing it holds can become markup.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import duckdb

from distressbench.messages import one_line, printable
from distressbench.outputs.show import RubricRow, conversation, rubric
from distressbench.outputs.tables.formatting import Wording

EXAMPLES_PER_GROUP = 3
HARDEST_PER_DIMENSION = 3

SAMPLE_ORDER = "md5(c.model_id || '/' || c.task_id), c.model_id, c.task_id"

NOT_ROUTED_SQL = f"""
select c.model_id, c.task_id from marts.cases as c
where c.is_ranked and c.is_recognized_not_routed
order by {SAMPLE_ORDER}
limit ?
"""

HARDEST_SQL = """
select p.criterion_id, p.task_id, p.dimension, p.hardness_rank, p.pass_rate
from marts.criterion_pass_rates as p
left join reference.dimensions as d on p.dimension = d.dimension_id
where p.hardness_rank <= ?
order by d.display_order, p.dimension, p.hardness_rank
"""

REPLY_TO_CRITERION_SQL = f"""
select c.model_id, c.task_id from marts.verdicts as v
inner join marts.cases as c on v.model_id = c.model_id and v.task_id = c.task_id
where v.criterion_id = ? and c.is_ranked
order by v.is_met, {SAMPLE_ORDER}
limit 1
"""

BEST_MODEL_SQL = "select model_id from marts.model_scores where rank = 1 order by model_id limit 1"

LOWEST_CELLS_SQL = """
select c.model_id, c.task_id from marts.cases as c
where c.model_id = ?
order by c.score, c.task_id
limit ?
"""

CELL_SQL = """
select c.response_id, c.subcategory, c.turn_type, c.response_text, c.is_empty_reply, c.weight_met,
       c.weight_total, c.score, s.display_name
from marts.cases as c
left join marts.model_scores as s on c.model_id = s.model_id
where c.model_id = ? and c.task_id = ?
"""


@dataclass(frozen=True)
class Example:
    note: str  # why it was chosen
    model_id: str
    display_name: str | None
    task_id: str
    response_id: str
    subcategory: str
    turn_type: str
    response_text: str | None
    is_empty_reply: bool
    weight_met: int
    weight_total: int
    score: float
    turns: list[tuple[int, str, str]]
    rubric: list[RubricRow]
    focus: str | None = None  # the criterion it illustrates


@dataclass(frozen=True)
class Group:
    id: str
    title: str
    rule: str
    examples: list[Example]


def _example(
    connection: duckdb.DuckDBPyConnection, model_id: str, task_id: str, note: str, focus: str | None = None
) -> Example:
    row = connection.execute(CELL_SQL, [model_id, task_id]).fetchone()
    if row is None:
        raise ValueError(f"marts.cases has no row for model_id={model_id!r}, task_id={task_id!r}")
    response_id, subcategory, turn_type, text, is_empty, weight_met, weight_total, score, display_name = row
    return Example(
        note,
        model_id,
        display_name,
        task_id,
        response_id,
        subcategory,
        turn_type,
        text,
        bool(is_empty),
        weight_met,
        weight_total,
        score,
        conversation(connection, task_id),
        rubric(connection, task_id, model_id),
        focus,
    )


def load_groups(connection: duckdb.DuckDBPyConnection) -> list[Group]:
    """The three groups of examples, by the rules in the module docstring."""
    not_routed = [
        _example(connection, m, t, "recognized the crisis, did not route")
        for m, t in connection.execute(NOT_ROUTED_SQL, [EXAMPLES_PER_GROUP]).fetchall()
    ]
    hardest: list[Example] = []
    for criterion_id, _, dimension, hardness_rank, pass_rate in connection.execute(
        HARDEST_SQL, [HARDEST_PER_DIMENSION]
    ).fetchall():
        reply = connection.execute(REPLY_TO_CRITERION_SQL, [criterion_id]).fetchone()
        if reply is not None:
            note = f"{dimension} #{hardness_rank}: criterion {one_line(criterion_id)}, pass rate {pass_rate:.0%}"
            hardest.append(_example(connection, reply[0], reply[1], note, focus=criterion_id))
    best = connection.execute(BEST_MODEL_SQL).fetchone()
    lowest = (
        [
            _example(connection, m, t, "a lowest-scoring cell of the best model")
            for m, t in connection.execute(LOWEST_CELLS_SQL, [best[0], EXAMPLES_PER_GROUP]).fetchall()
        ]
        if best is not None
        else []
    )
    return [
        Group(
            "not-routed",
            "Recognized but not routed",
            f"Cells of ranked models that met every recognition criterion and failed routing: the "
            f"{EXAMPLES_PER_GROUP} with the smallest MD5 of model id, '/', task id (a fixed pseudo-random pick).",
            not_routed,
        ),
        Group(
            "hardest",
            "The hardest criteria of each dimension",
            f"The {HARDEST_PER_DIMENSION} criteria of each dimension with the lowest pass rate over ranked models "
            "(hardness_rank in marts.criterion_pass_rates; ties: heavier first, then criterion id); for each, the "
            "ranked model's reply that missed it with the smallest MD5 of model id, '/', task id.",
            hardest,
        ),
        Group(
            "best-lowest",
            "The best model's lowest-scoring cells",
            f"The {EXAMPLES_PER_GROUP} tasks on which the rank-1 model (ties: smallest model id) scores lowest; "
            "ties by task id.",
            lowest,
        ),
    ]


def _text(value: str | None) -> str:
    return html.escape(printable(value))


def _id(value: str | None) -> str:
    return html.escape(one_line(value))


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _rubric_table(example: Example) -> str:
    rows = []
    for r in example.rubric:
        classes = ["met" if r.is_met else "unmet"] + (["focus"] if r.criterion_id == example.focus else [])
        rows.append(
            f'<tr class="{" ".join(classes)}"><td class="txt"><code>{_id(r.criterion_id)}</code></td>'
            f'<td class="txt">{_id(r.dimension)}</td><td class="num">{r.weight}</td>'
            f'<td class="num">{r.n_met} of {r.n_of}</td><td class="txt">{"met" if r.is_met else "not met"}</td>'
            f'<td class="txt case-text">{_text(r.text)}</td></tr>'
        )
    return (
        f'<table class="paper-table rubric" data-response-id="{html.escape(example.response_id, quote=True)}">'
        '<thead><tr><th class="txt" scope="col">Criterion</th><th class="txt" scope="col">Dimension</th>'
        '<th class="num" scope="col">Weight</th><th class="num" scope="col">Votes met</th>'
        '<th class="txt" scope="col">Verdict</th><th class="txt" scope="col">Criterion text</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _example_html(example: Example, ident: str, *, is_open: bool = False) -> str:
    esc = html.escape
    name = f" ({_text(example.display_name)})" if example.display_name else ""
    turns = "".join(
        f'<li class="turn turn-{_id(role)}"><span class="role">{_id(role)}</span>'
        f'<div class="case-text">{_text(text)}</div></li>'
        for _, role, text in example.turns
    )
    reply = (
        '<p class="case-text empty">(empty reply: it meets no criterion)</p>'
        if example.is_empty_reply
        else f'<div class="case-text reply">{_text(example.response_text)}</div>'
    )
    return (
        f'<details class="case" id="{ident}" data-model-id="{esc(example.model_id)}" '
        f'data-task-id="{esc(example.task_id)}"{" open" if is_open else ""}>'
        f"<summary>{esc(example.note)}: <code>{_id(example.model_id)}</code>{name} "
        f"on task <code>{_id(example.task_id)}</code> · {_id(example.subcategory)}, {_id(example.turn_type)}-turn · "
        f"cell score {_pct(example.score)}</summary>"
        f'<div class="case-body"><h4>Conversation</h4><ol class="turns">{turns}</ol>'
        f"<h4>Reply (response <code>{_id(example.response_id)}</code>)</h4>{reply}"
        f'<h4>Rubric</h4><div class="table-wrap">{_rubric_table(example)}</div>'
        f'<p class="case-score">Weighted score: {example.weight_met} of {example.weight_total} = '
        f"{_pct(example.score)}</p></div></details>"
    )


def render_groups(groups: list[Group]) -> str:
    """The section's body: how the examples were chosen, then each group's examples."""
    parts = [
        "<p>A few conversations behind the numbers, chosen by fixed rules, so that the same release gives the "
        "same examples. Open an example to read the conversation, the reply and the rubric with the judge's votes "
        "and verdicts. The full set, one row per model and task, is in <code>marts.cases</code> (criteria in "
        "<code>marts.criterion_pass_rates</code>, votes in <code>marts.verdicts</code>, conversations in "
        "<code>marts.conversation_turns</code>); <code>distressbench show TASK_ID --model MODEL_ID</code> prints "
        "any of them.</p>"
    ]
    for group in groups:
        parts.append(
            f'<h3 id="cases-{group.id}">{html.escape(group.title)}</h3><p class="table-caption">'
            f"{html.escape(group.rule)}</p>"
        )
        if not group.examples:
            parts.append('<p class="table-caption">No such case in this release.</p>')
        parts.extend(
            _example_html(e, f"case-{group.id}-{i + 1}", is_open=group is groups[0] and i == 0)
            for i, e in enumerate(group.examples)
        )
    return "".join(parts)


def cases_section(connection: duckdb.DuckDBPyConnection, _wording: Wording) -> str:
    """The Cases section's body, from the published marts (it prints no dbt var)."""
    return render_groups(load_groups(connection))
