"""`distressbench sql` on a small hand-made warehouse: `show tables` lists the marts,
unqualified names read the marts first, every other schema stays readable by its qualified
name, results print as a plain table, and an error quotes at most a prefix of the query."""

from __future__ import annotations

from pathlib import Path

import pytest

from distressbench.messages import display_width
from distressbench.outputs.warehouse import MAX_ROWS, format_table
from fixtures.cli_calls import sql


def test_show_tables_lists_the_marts(small_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = sql(small_warehouse, "show tables", capsys)
    assert code == 0, err
    assert out.split() == ["name", "model_scores", "verdicts"]


def test_show_all_tables_still_lists_every_schema(small_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = sql(small_warehouse, "select schema, name from (show all tables) order by all", capsys)
    assert code == 0, err
    assert [line.split() for line in out.splitlines()[1:]] == [
        ["history", "model_scores"],
        ["marts", "model_scores"],
        ["marts", "verdicts"],
        ["reporting", "rpt_leaderboard"],
    ]


def test_unqualified_names_read_the_marts_first(small_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = sql(small_warehouse, "select * from model_scores order by model_id", capsys)
    assert code == 0, err
    assert [line.split() for line in out.splitlines()] == [["model_id", "score"], ["m1", "0.50"], ["m2", "0.25"]]
    code, out, err = sql(small_warehouse, "select model_id from history.model_scores", capsys)
    assert code == 0 and out.split() == ["model_id", "old"], err
    code, out, err = sql(small_warehouse, "select model_id from reporting.rpt_leaderboard", capsys)
    assert code == 0 and out.split() == ["model_id", "m1"], err


def test_a_long_result_prints_its_first_rows_and_says_so(
    small_warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = sql(small_warehouse, "select i from verdicts order by i", capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert [line.strip() for line in lines[: MAX_ROWS + 1]] == ["i", *(str(i) for i in range(MAX_ROWS))]
    assert lines[MAX_ROWS + 1 :] == [f"(the first {MAX_ROWS} rows; add `limit` and `offset` to read others)"]


def test_format_table_aligns_columns_and_escapes_control_characters() -> None:
    assert format_table(["id", "text"], [("a", "x\n\x1b[2J"), ("bbb", None)]).splitlines() == [
        " id        text",
        "  a  x\\n\\x1b[2J",
        "bbb        NULL",
    ]


def test_a_cell_is_escaped_as_show_escapes_release_text() -> None:
    """A tab, CR LF, a bidirectional override and a no-break space in a cell print as
    `distressbench show` prints them: one line, nothing obeyed by the terminal."""
    value = "a\tb\r\nc\u202ed\u00a0e"
    assert format_table(["t"], [(value,)]).splitlines()[1] == "a    b\\nc\\u202ed e"


def test_format_table_aligns_wide_and_combining_characters_by_terminal_columns() -> None:
    lines = format_table(["name", "n"], [("日本", 1), ("ab", 22), ("e\u0301", 3)]).splitlines()
    assert lines == ["name   n", "日本   1", "  ab  22", "   e\u0301   3"]
    assert {display_width(line) for line in lines} == {8}


def test_an_error_quotes_a_prefix_of_a_long_query(small_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = "t" * 10_000
    code, out, err = sql(small_warehouse, f"select * from {name}", capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("sql: Catalog Error: Table with name ttt")
    assert len(err) < 400 and "characters in all)" in err


def test_an_error_keeps_duckdbs_hint(small_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = sql(small_warehouse, "select * from model_score", capsys)
    assert code == 1 and out == ""
    assert err == 'sql: Catalog Error: Table with name model_score does not exist! Did you mean "model_scores"?\n'
    code, out, err = sql(small_warehouse, "select scor from model_scores", capsys)
    assert code == 1 and err.count("\n") == 1
    assert 'Candidate bindings: "score"' in err and "LINE 1" not in err
