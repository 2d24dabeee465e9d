"""Blank is empty: text the contract calls non-empty must hold a character that is not white
space, while a model's display_name and provider may be null or blank (the gate and submit
apply the same rule to them)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from distressbench.gate.results import quote
from fixtures.gate_fixture import SharedGate
from fixtures.releases.hand_built import MODEL_IDS, TASK_IDS, criterion_id
from fixtures.releases.writer import read_table, refresh_manifest, rewrite_table

T2 = TASK_IDS[1]
# each test runs the gate's dbt staging (shared_gate)


def _set(release: Path, table: str, column: str, row: int, value: str | None) -> None:
    """One cell of a release table set to `value`, the manifest rewritten to match."""
    data = read_table(release, table)
    values = data[column].to_pylist()
    values[row] = value
    index = data.schema.get_field_index(column)
    rewrite_table(release, table, data.set_column(index, column, pa.array(values, pa.string())))
    refresh_manifest(release)


def _row(release: Path, table: str, **key: object) -> int:
    rows = read_table(release, table).to_pylist()
    return next(i for i, row in enumerate(rows) if all(row[k] == v for k, v in key.items()))


@pytest.mark.parametrize(
    ("table", "column", "key", "label", "problem", "shown"),
    [
        (
            "criteria",
            "text",
            {"criterion_id": criterion_id(5, 6)},
            "non_empty criteria.text",
            "1 criterion with an empty text",
            quote(criterion_id(5, 6)),
        ),
        (
            "turns",
            "content",
            {"task_id": T2, "turn_index": 1},
            "non_empty turns.content",
            "1 turn with an empty content",
            f"({quote(T2)}, 1)",
        ),
        (
            "tasks",
            "reference_response",
            {"task_id": T2},
            "non_empty tasks.reference_response",
            "1 task with an empty reference_response",
            quote(T2),
        ),
    ],
)
@pytest.mark.parametrize("blank", ["   ", " \t\n\r\f "])
def test_white_space_alone_is_refused_by_name(
    good_release: Path,
    shared_gate: SharedGate,
    table: str,
    column: str,
    key: dict[str, object],
    label: str,
    problem: str,
    shown: str,
    blank: str,
) -> None:
    _set(good_release, table, column, _row(good_release, table, **key), blank)
    report = shared_gate(good_release, echo=False)
    assert [failure.label for failure in report.failures] == [label]
    (failure,) = report.failures
    assert failure.n_failed == 1
    assert failure.message.startswith(problem) and shown in failure.message, failure.message


def test_text_with_a_visible_character_among_white_space_passes(good_release: Path, shared_gate: SharedGate) -> None:
    _set(good_release, "criteria", "text", 0, " \t.\n ")
    _set(good_release, "turns", "content", 0, "\u00a0")  # a no-break space is not white space to the contract
    assert shared_gate(good_release, echo=False).passed


@pytest.mark.parametrize("name", [None, "", "  \t "])
def test_a_blank_or_null_display_name_and_provider_pass(
    good_release: Path, shared_gate: SharedGate, name: str | None
) -> None:
    row = _row(good_release, "models", model_id=MODEL_IDS[0])
    _set(good_release, "models", "display_name", row, name)
    _set(good_release, "models", "provider", row, name)
    report = shared_gate(good_release, echo=False)
    assert report.passed, [failure.line() for failure in report.failures]
