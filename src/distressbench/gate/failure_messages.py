"""How the gate shows a failed value check: values quoted, example keys listed, and the one
message '<n> <units> <problem>; <key>: <examples>'."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from distressbench.gate.results import N_EXAMPLES, listing, quote

ROW = "file_row_number"


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


def key_label(key: tuple[str, ...], show: tuple[tuple[str, str], ...], with_row: bool) -> str:
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


def examples_of(
    rows: Iterable[dict[str, Any]], key: tuple[str, ...], show: tuple[tuple[str, str], ...], with_row: bool
) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.setdefault(_example(row, key, show, with_row))
    return list(seen)[:N_EXAMPLES]


def failure_message(
    n: int, unit: str, units: str, problem: str, label: str, examples: list[str], grouped_more: bool | None = None
) -> str:
    """'<n> <units> <problem>; <key label>: <examples>'. When an example stands for several
    offending rows (grouped_more is not None), say only whether more examples exist."""
    head = f"{n} {unit if n == 1 else units} {problem}"
    if not examples:
        return head
    shown = (
        listing(examples, n) if grouped_more is None else ", ".join(examples) + (" and more" if grouped_more else "")
    )
    return f"{head}; {label}: {shown}"
