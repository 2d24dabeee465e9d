"""A message quotes at most a readable prefix of any user input: a 10,000-character task
id, query, path or manifest value never comes back whole in an error line."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from distressbench import cli
from distressbench.gate.results import quote
from distressbench.messages import INPUT_PREFIX, LINE_PREFIX, error_line, shown
from fixtures.cli_calls import LONG, run


def test_shown_quotes_a_short_input_whole_and_a_long_one_by_its_prefix() -> None:
    assert shown("T-1'x") == repr("T-1'x")
    assert shown("a" * INPUT_PREFIX) == repr("a" * INPUT_PREFIX)
    assert shown("ab" * 5_000) == repr("ab" * (INPUT_PREFIX // 2)) + "... (10,000 characters)"
    assert quote("é\n" + "x" * 100) == '"é\\n' + "x" * (INPUT_PREFIX - 2) + '"... (102 characters)'


def test_error_line_is_one_line_cut_at_its_prefix() -> None:
    assert error_line("a\n  b\tc") == "a b c"
    cut = error_line("no task " + LONG)
    assert cut == ("no task " + LONG)[:LINE_PREFIX] + "... (cut; 10,008 characters in all)"


def test_the_cli_error_line_quotes_a_prefix_of_a_long_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "tables", "--warehouse", str(tmp_path / LONG), "--out", str(tmp_path / "out"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"tables: {tmp_path}")
    assert len(err) < LINE_PREFIX + 100


def test_an_argument_error_quotes_a_prefix_of_the_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["sql", "select 1", LONG])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("distressbench: error: unrecognized arguments: ttt") and len(last) < LINE_PREFIX + 100


def test_sql_quotes_a_prefix_of_a_long_warehouse_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "sql", "select 1", "--warehouse", str(tmp_path / LONG))
    assert code == 2 and err.count("\n") == 1 and len(err) < LINE_PREFIX + 100


def test_show_quotes_a_prefix_of_a_long_task_or_model_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    warehouse = tmp_path / "cases.duckdb"
    with duckdb.connect(str(warehouse)) as connection:
        connection.execute("create schema marts")
        connection.execute(
            "create table marts.cases as select 'T-1' as task_id, 'm1' as model_id, 's' as subcategory, "
            "'single' as turn_type, 1 as n_user_turns, 2 as n_turns, 'R-1' as response_id, 'model' as kind, "
            "'a reply' as response_text, false as is_empty_reply, 1.0 as weight_met, 1.0 as weight_total, "
            "1.0 as score, 1 as n_met, 1 as n_criteria"
        )
        connection.execute(
            "create table marts.conversation_turns as select 'T-1' as task_id, 0 as turn_index, 'user' as role, "
            "'hello' as turn_text"
        )
    code, out, err = run(capsys, "show", LONG, "--warehouse", str(warehouse))
    assert code == 1 and out == ""
    assert err == f"show: no task {repr('t' * INPUT_PREFIX)}... (10,000 characters) in the warehouse; nearest: 'T-1'\n"
    code, out, err = run(capsys, "show", "T-1", "--model", LONG, "--warehouse", str(warehouse))
    assert code == 1 and err.startswith("show: no model 'ttt") and "... (10,000 characters)" in err
    assert len(err) < LINE_PREFIX
