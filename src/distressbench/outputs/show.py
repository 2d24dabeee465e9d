"""`distressbench show TASK_ID [--model MODEL_ID]`: one conversation, a reply and its rubric.

Everything printed comes from the published warehouse's marts (`cases`,
`conversation_turns`, `criterion_pass_rates`, `verdicts`) through parameterised queries;
nothing is recomputed. The output fits an 80-column terminal: long text is wrapped with
textwrap and re-split where wide (East Asian) characters would overflow. Release text
reaches the terminal only through `messages.printable`, so control characters, ANSI escapes
and bidirectional overrides are shown as escapes, never obeyed.
"""

from __future__ import annotations

import difflib
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import duckdb

from distressbench.errors import DistressbenchError, UsageError
from distressbench.messages import char_width, display_width, one_line, printable, shown
from distressbench.outputs.warehouse import connect_read_only, duckdb_message
from distressbench.release.manifest import manifest_sha256, read_manifest

WIDTH = 80
INDENT = "    "
N_NEAREST = 5


def quoted(value: str | None) -> str:
    """An id for a message, quoted and exact: every non-printable character escaped; a long
    one cut to a readable prefix and its length."""
    return "null" if value is None else shown(value)


def _fit(line: str, width: int, indent: str) -> list[str]:
    """Split a line that is wider than `width` columns at character boundaries."""
    pieces: list[str] = []
    current, used = "", 0
    for ch in line:
        w = char_width(ch)
        if used + w > width and current.strip():
            pieces.append(current)
            current, used = indent, display_width(indent)
        current += ch
        used += w
    pieces.append(current)
    return pieces


def wrap(text: str, *, indent: str = "", width: int = WIDTH) -> list[str]:
    """Printable text wrapped to `width` columns, each line indented; paragraphs kept."""
    lines: list[str] = []
    for paragraph in printable(text).split("\n"):
        wrapped = textwrap.wrap(
            paragraph, width=width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
        ) or [""]
        for line in wrapped:
            lines.extend(_fit(line, width, indent) if display_width(line) > width else [line])
    return lines


@dataclass(frozen=True)
class RubricRow:
    criterion_id: str
    dimension: str
    weight: int
    text: str
    n_met: int | None  # judge labels met (with a model) / ranked models meeting it (without)
    n_of: int | None  # judge labels (with a model) / ranked models (without)
    is_met: bool | None  # the verdict (with a model) / the clinician reference's (without)


RUBRIC_OF_REPLY_SQL = """
select v.criterion_id, v.dimension, v.weight, c.criterion_text, v.n_met, v.n_labels, v.is_met
from marts.verdicts as v
inner join marts.criterion_pass_rates as c on v.criterion_id = c.criterion_id
left join reference.dimensions as d on v.dimension = d.dimension_id
where v.task_id = ? and v.model_id = ?
order by d.display_order, v.weight desc, v.criterion_id
"""

RUBRIC_OF_TASK_SQL = """
select c.criterion_id, c.dimension, c.weight, c.criterion_text, c.n_models_met, c.n_models, c.is_met_by_reference
from marts.criterion_pass_rates as c
left join reference.dimensions as d on c.dimension = d.dimension_id
where c.task_id = ?
order by d.display_order, c.weight desc, c.criterion_id
"""


def rubric(connection: duckdb.DuckDBPyConnection, task_id: str, model_id: str | None) -> list[RubricRow]:
    """The task's rubric in display order (dimension, heavier first, criterion_id): with a
    model, its reply's votes and verdicts; without, the pass counts and the reference's verdict."""
    if model_id is None:
        rows = connection.execute(RUBRIC_OF_TASK_SQL, [task_id]).fetchall()
    else:
        rows = connection.execute(RUBRIC_OF_REPLY_SQL, [task_id, model_id]).fetchall()
    return [RubricRow(*row) for row in rows]


def conversation(connection: duckdb.DuckDBPyConnection, task_id: str) -> list[tuple[int, str, str]]:
    """(turn_index, role, text) of the task's conversation, in order."""
    return connection.execute(
        "select turn_index, role, turn_text from marts.conversation_turns where task_id = ? order by turn_index",
        [task_id],
    ).fetchall()


class UnknownId(DistressbenchError, LookupError):
    """A task or model id the warehouse does not hold."""


def _nearest(connection: duckdb.DuckDBPyConnection, what: str, value: str, sql: str, params: list[str]) -> str:
    known = [row[0] for row in connection.execute(sql, params).fetchall()]
    nearest = difflib.get_close_matches(value, known, n=N_NEAREST, cutoff=0.0)
    hint = f"; nearest: {', '.join(quoted(k) for k in nearest)}" if nearest else ""
    return f"no {what} {quoted(value)} in the warehouse{hint}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _heading(title: str) -> list[str]:
    return ["", *wrap(title), "-" * min(WIDTH, max(display_width(printable(title)), 1))]


def render(connection: duckdb.DuckDBPyConnection, task_id: str, model_id: str | None = None) -> str:
    """The text `distressbench show` prints. Raises UnknownId for an unknown task or model."""
    task = connection.execute(
        "select subcategory, turn_type, n_user_turns, n_turns from marts.cases where task_id = ? "
        "order by model_id limit 1",
        [task_id],
    ).fetchone()
    if task is None:
        raise UnknownId(_nearest(connection, "task", task_id, "select distinct task_id from marts.cases", []))
    subcategory, turn_type, n_user_turns, n_turns = task
    lines = [
        *wrap(f"Task {one_line(task_id)}"),
        *wrap(
            f"subcategory {subcategory} · turn type {turn_type} ({_count(n_user_turns, 'user turn')}, "
            f"{_count(n_turns, 'turn')} in all)"
        ),
    ]
    lines += _heading("Conversation")
    for turn_index, role, text in conversation(connection, task_id):
        lines += wrap(f"[{turn_index + 1}] {role}")
        lines += wrap(text, indent=INDENT)

    if model_id is None:
        lines += _scores(connection, task_id)
        lines += _heading("Rubric (met by: ranked models whose reply meets it; reference: its verdict)")
        for row in rubric(connection, task_id, None):
            reference = "met" if row.is_met else "not met"
            lines += wrap(
                f"{one_line(row.criterion_id)} · {row.dimension} · weight {row.weight} · "
                f"met by {row.n_met} of {row.n_of} models · reference: {reference}"
            )
            lines += wrap(row.text, indent=INDENT)
        return "\n".join(lines) + "\n"

    cell = connection.execute(
        "select response_id, kind, response_text, is_empty_reply, weight_met, weight_total, score, n_met, n_criteria "
        "from marts.cases where task_id = ? and model_id = ?",
        [task_id, model_id],
    ).fetchone()
    if cell is None:
        raise UnknownId(
            _nearest(connection, "model", model_id, "select model_id from marts.cases where task_id = ?", [task_id])
        )
    response_id, kind, response_text, is_empty, weight_met, weight_total, score, n_met, n_criteria = cell
    lines += _heading(f"Reply of {one_line(model_id)} ({kind}), response {one_line(response_id)}")
    source = reply_source(connection, response_id)
    if source is not None:
        lines += wrap(
            f"(from {one_line(str(source.get('log')))}, sample {one_line(str(source.get('sample')))}, "
            f"epoch {one_line(str(source.get('epoch')))})"
        )
    lines += wrap("(empty reply: it meets no criterion)" if is_empty else response_text, indent=INDENT)
    lines += _heading("Rubric")
    for row in rubric(connection, task_id, model_id):
        verdict = "MET" if row.is_met else "NOT MET"
        lines += wrap(
            f"{one_line(row.criterion_id)} · {row.dimension} · weight {row.weight} · "
            f"votes {row.n_met} met of {row.n_of} labels · {verdict}"
        )
        lines += wrap(row.text, indent=INDENT)
    lines += ["", *wrap(f"Weighted score: {weight_met} of {weight_total} = {score:.3f} ({n_met} of {n_criteria} met)")]
    return "\n".join(lines) + "\n"


def reply_source(connection: duckdb.DuckDBPyConnection, response_id: str) -> dict[str, object] | None:
    """Where a submitted reply came from (`reply_sources` of the release manifest, e.g. an
    Inspect log and sample), while the published release's folder still holds the manifest
    it was built from; else None."""
    try:
        row = connection.execute(
            "select release_dir, manifest_sha256 from meta.published_releases order by rowid desc limit 1"
        ).fetchone()
        if row is None or not row[0] or manifest_sha256(Path(row[0])) != row[1]:
            return None
        source = read_manifest(Path(row[0])).get("reply_sources", {}).get(response_id)
    except (duckdb.Error, OSError, ValueError, AttributeError):
        return None
    return source if isinstance(source, dict) else None


def _scores(connection: duckdb.DuckDBPyConnection, task_id: str) -> list[str]:
    rows = connection.execute(
        "select model_id, kind, score, weight_met, weight_total from marts.cases where task_id = ? "
        "order by score desc, model_id",
        [task_id],
    ).fetchall()
    n_ranked = sum(1 for row in rows if row[1] == "model")
    who = f"{n_ranked} model{'s' if n_ranked != 1 else ''}"
    if n_ranked < len(rows):
        who += " and the clinician reference"
    lines = _heading(f"Cell scores of the {who}, best first")
    for model_id, kind, score, weight_met, weight_total in rows:
        marker = " (clinician reference, not ranked)" if kind != "model" else ""
        lines += wrap(f"{score:6.3f}  {weight_met:>4} of {weight_total:<4} {one_line(model_id)}{marker}")
    return lines


def _safe_for(stream: TextIO, text: str) -> str:
    """Text the stream's encoding can write: what it cannot is backslash-escaped."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


def show(warehouse: Path, task_id: str, model_id: str | None = None, *, out: TextIO | None = None) -> None:
    """The `distressbench show` command. Raises WarehouseMissing or NotAWarehouse (exit 2),
    UnknownId (exit 1), or UsageError when the file has no drill-down marts (exit 2)."""
    out = out or sys.stdout
    with connect_read_only(warehouse) as connection:
        try:
            text = render(connection, task_id, model_id)
        except duckdb.Error as error:  # e.g. a warehouse built before the drill-down marts existed
            raise UsageError(f"cannot read the drill-down marts of {warehouse}: {duckdb_message(error)}") from error
    out.write(_safe_for(out, text))
