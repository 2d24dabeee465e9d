"""`distressbench sql --format`: the table rounds floats for display (never `-0`); CSV, JSON
and Markdown print every row at full precision, nulls as nulls, release text escaped for
the format; `use` is refused as what it is."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import duckdb
import pytest

from distressbench import cli
from distressbench.outputs.warehouse import MAX_ROWS

# 0.1 + 0.2 prints as 0.30000000000000004 at full precision, 0.3 rounded
SUM = 0.1 + 0.2


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    path = tmp_path / "w.duckdb"
    with duckdb.connect(str(path)) as connection:
        connection.execute("create schema marts")
        connection.execute(
            "create table marts.scores as select * from (values "
            "('a|b', 0.1::double + 0.2::double, 3, date '2026-11-01'), "
            "('c,\"d\"', -0.0::double, null, null), "
            "('*e*', null, 5, date '2026-11-02')"
            ") as t(model_id, score, n, day)"
        )
        connection.execute("create table marts.many as select range as i, range / 3 as third from range(250)")
    return path


def run(warehouse: Path, query: str, fmt: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(["sql", query, "--format", fmt, "--warehouse", str(warehouse)])
    out, err = capsys.readouterr()
    return code, out, err


QUERY = "select model_id, score, n, day from scores order by n nulls last"


def test_the_table_rounds_for_display(warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(warehouse, QUERY, "table", capsys)
    assert code == 0, err
    assert [line.split() for line in out.splitlines()] == [
        ["model_id", "score", "n", "day"],
        ["a|b", "0.3", "3", "2026-11-01"],
        ["*e*", "NULL", "5", "2026-11-02"],
        ['c,"d"', "0", "NULL", "NULL"],
    ]


def test_csv_keeps_full_precision_and_quotes_fields(warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(warehouse, QUERY, "csv", capsys)
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows == [
        ["model_id", "score", "n", "day"],
        ["a|b", "0.30000000000000004", "3", "2026-11-01"],
        ["*e*", "", "5", "2026-11-02"],
        ['c,"d"', "-0.0", "", ""],
    ]
    assert float(rows[1][1]) == SUM


def test_json_is_an_array_of_objects_at_full_precision(warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(warehouse, QUERY, "json", capsys)
    assert code == 0, err
    assert json.loads(out) == [
        {"model_id": "a|b", "score": SUM, "n": 3, "day": "2026-11-01"},
        {"model_id": "*e*", "score": None, "n": 5, "day": "2026-11-02"},
        {"model_id": 'c,"d"', "score": -0.0, "n": None, "day": None},
    ]


def test_markdown_escapes_pipes_and_marks(warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(warehouse, QUERY, "markdown", capsys)
    assert code == 0, err
    assert out.splitlines() == [
        "| model\\_id | score | n | day |",
        "|---|---|---|---|",
        "| a\\|b | 0.30000000000000004 | 3 | 2026-11-01 |",
        "| \\*e\\* |  | 5 | 2026-11-02 |",
        '| c,"d" | -0.0 |  |  |',
    ]


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown"])
def test_the_full_formats_print_every_row(fmt: str, warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(warehouse, "select i, third from many order by i", fmt, capsys)
    assert code == 0, err
    if fmt == "json":
        records = json.loads(out)
        assert len(records) == 250 > MAX_ROWS and records[1] == {"i": 1, "third": 1 / 3}
    else:
        lines = out.splitlines()
        header_lines = 1 if fmt == "csv" else 2
        assert len(lines) == 250 + header_lines
        assert str(1 / 3) in lines[header_lines + 1]


def test_use_is_refused_as_a_change_of_schema(warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(warehouse, "use main", "table", capsys)
    assert code == 1 and out == ""
    assert err.startswith("sql: refused `use`, which would change the schema unqualified names read (always marts)")
    assert "SET" not in err and err.count("\n") == 1
