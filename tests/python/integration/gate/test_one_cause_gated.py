"""One cause, one line, through the gate itself: each problem's cause as one line on stderr
(the failures it explains named on that line), the passed checks on stdout; a mistake in the
files or schemas is answered without starting dbt or importing Great Expectations, and one
in the values without starting dbt. The
grouping alone is tested in tests/python/unit/gate/test_one_cause.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from distressbench import cli
from distressbench.dbt import compiled, process
from distressbench.gate.results import quote
from fixtures.gate_fixture import SharedGate
from fixtures.releases.hand_built import criterion_id, response_id
from fixtures.releases.writer import read_table, refresh_manifest, rewrite_table


def _set(release: Path, table: str, column: str, key: str, target: str, value: object) -> None:
    data = read_table(release, table)
    rows = data[key].to_pylist().index(target)
    values = data[column].to_pylist()
    values[rows] = value
    index = data.schema.get_field_index(column)
    rewrite_table(release, table, data.set_column(index, column, pa.array(values, data.schema.field(column).type)))
    refresh_manifest(release)


def _problems(release: Path, gate: SharedGate, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What the gate printed on stderr (stdout holds only PASS, SKIP and the verdict)."""
    report = gate(release)
    out, err = capsys.readouterr()
    assert not report.passed
    assert all(line.startswith(("PASS ", "SKIP ", "gate FAILED: ")) for line in out.splitlines()), out
    return err.splitlines()


def test_an_empty_task_id_of_a_reply_is_one_line(
    good_release: Path, shared_gate: SharedGate, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = response_id(0, 0)
    _set(good_release, "responses", "task_id", "response_id", reply, "")
    (line,) = _problems(good_release, shared_gate, capsys)
    assert line.startswith(
        f"FAIL foreign_key responses.task_id: 1 reply with a task_id missing from tasks; "
        f'response_id (task_id): {quote(reply)} ("") (and '
    )
    assert "checks that depend on it: responses_complete responses.(task_id, model_id), same_task " in line
    report = shared_gate(good_release, echo=False)
    causes = {c.label: c.caused_by for c in report.failures}
    assert causes["foreign_key responses.task_id"] is None
    assert causes["responses_complete responses.(task_id, model_id)"] == "foreign_key responses.task_id"
    assert causes["same_task judge_labels.criterion_id"] == "foreign_key responses.task_id"
    assert len(causes) >= 3


@pytest.mark.parametrize(
    ("column", "value", "start"),
    [
        ("weight", 25, "FAIL weight_range criteria.weight: 1 criterion with a weight outside 1..20; "),
        ("text", "   ", "FAIL non_empty criteria.text: 1 criterion with an empty text; "),
    ],
)
def test_a_value_mistake_is_one_line(
    good_release: Path,
    shared_gate: SharedGate,
    capsys: pytest.CaptureFixture[str],
    column: str,
    value: object,
    start: str,
) -> None:
    _set(good_release, "criteria", column, "criterion_id", criterion_id(1, 2), value)
    (line,) = _problems(good_release, shared_gate, capsys)
    assert line.startswith(start) and quote(criterion_id(1, 2)) in line, line


def test_a_missing_column_is_one_line_without_dbt(
    good_release: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("dbt was started for a schema mistake")

    monkeypatch.setattr(process.DbtProcess, "start", refuse)
    monkeypatch.setattr(compiled, "staging_sql", refuse)
    data = read_table(good_release, "criteria")
    rewrite_table(good_release, "criteria", data.drop_columns(["dimension"]))
    refresh_manifest(good_release)
    report_path = tmp_path / "gate.json"
    assert cli.main(["gate", str(good_release), "--report", str(report_path)]) == 1
    out, err = capsys.readouterr()
    problems = [line for line in err.splitlines() if not line.startswith("gate report: ")]
    assert problems == [
        "FAIL schema_columns criteria.dimension: criteria.parquet lacks column dimension; the contract's columns "
        "of criteria are criterion_id, task_id, dimension, weight, text"
    ]
    assert "SKIP value checks: they read the release once its manifest, files and schemas pass" in out
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert {c["stage"] for c in report["checks"]} == {"manifest", "schema"}


def test_a_schema_mistake_imports_neither_dbt_nor_great_expectations(good_release: Path) -> None:
    data = read_table(good_release, "criteria")
    rewrite_table(good_release, "criteria", data.append_column("extra", pa.array([1] * data.num_rows)))
    refresh_manifest(good_release)
    script = (
        "import sys; from distressbench import cli; code = cli.main(['gate', sys.argv[1]]); "
        "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'dbt', 'great_expectations'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(good_release)], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.stdout.splitlines()[-1] == "1 []", done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        "FAIL schema_columns criteria.extra: criteria.parquet has extra column extra; the contract's columns of "
        "criteria are criterion_id, task_id, dimension, weight, text"
    ]


def test_a_value_mistake_is_answered_without_dbt(good_release: Path) -> None:
    """With the staging SQL compiled (once for the project's state), a gate that reaches the
    value checks runs it in DuckDB: dbt is neither started nor imported."""
    _set(good_release, "criteria", "weight", "criterion_id", criterion_id(1, 2), 25)
    script = """
import sys
from distressbench import cli
from distressbench.dbt import process
from distressbench.dbt.compiled import staging_sql
from distressbench.settings import Settings

staging_sql(Settings())  # compiled once for the project's state (here, or by an earlier gate)

def refuse(**arguments):
    raise SystemExit("dbt was started")

process.DbtProcess.start = refuse
code = cli.main(["gate", sys.argv[1]])
print(code, sorted({name.split(".")[0] for name in sys.modules} & {"dbt"}))
"""
    done = subprocess.run(
        [sys.executable, "-c", script, str(good_release)], capture_output=True, text=True, check=False, timeout=300
    )
    assert done.stdout.splitlines()[-1] == "1 []", done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("FAIL weight_range criteria.weight: ") and quote(criterion_id(1, 2)) in line, line
