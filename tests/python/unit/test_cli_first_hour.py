"""What a new user meets first: `--version`, a `--help` that describes every argument, hints
that are the command to run (the program as called, the options given, shell-quoted, never a
warehouse the user did not name), the build's next steps, the headline's `diff` column, and
one error type whose exit code `cli.py` prints."""

from __future__ import annotations

import argparse
import shlex
from importlib.metadata import version
from pathlib import Path

import duckdb
import pytest

from distressbench import cli
from distressbench.dbt.process import DbtFailed
from distressbench.errors import DistressbenchError, UsageError
from distressbench.evals.import_inspect import ImportRefused
from distressbench.outputs.show import UnknownId
from distressbench.outputs.warehouse import NotAWarehouse, QueryFailed, SqlRefused, WarehouseMissing
from distressbench.pack import PackRefused
from distressbench.publish.pipeline import print_summary
from distressbench.publish.stages import StageFailed
from distressbench.settings import Settings
from distressbench.stats.agreement import AgreementInputError
from distressbench.stats.bootstrap.checks import BootstrapInputError
from distressbench.stats.calibration import CalibrationInputError
from distressbench.submit import SubmissionRefused


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in cli._parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"distressbench {version('distressbench')}\n"


def test_help_describes_every_argument_of_every_command() -> None:
    undescribed = [
        (name, action.dest)
        for name, parser in _subparsers().items()
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction) and not (action.help or "").strip()
    ]
    assert undescribed == []


@pytest.mark.parametrize(
    ("called", "shown"),
    [(".venv/bin/distressbench", ".venv/bin/distressbench"), ("/usr/bin/python3", "distressbench")],
)
def test_a_hint_names_the_program_as_it_was_called(called: str, shown: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.argv", [called])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert cli.command_line("report") == f"{shown} report"


def test_the_build_hint_names_no_warehouse_while_none_is_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.argv", ["distressbench"])
    settings = Settings(warehouse=tmp_path / "warehouse" / "distressbench.duckdb")
    hint = cli.build_hint(Path("my release"), settings)
    assert hint == "build it with `distressbench build 'my release'`"


def test_the_build_hint_never_replaces_a_published_warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.argv", ["distressbench"])
    published = tmp_path / "warehouse" / "distressbench.duckdb"
    published.parent.mkdir()
    published.write_bytes(b"")
    hint = cli.build_hint(Path("demo") / "with model's replies", Settings(warehouse=published))
    command = hint.split("`")[1]
    assert shlex.split(command) == [
        "distressbench",
        "build",
        "demo/with model's replies",
        "--warehouse",
        "warehouse/with model's replies.duckdb",
    ]
    assert hint.endswith("without --warehouse it would replace warehouse/distressbench.duckdb)")


@pytest.mark.parametrize("warehouse", [None, "demo/the warehouse.duckdb"])
def test_the_build_ends_with_the_next_commands_and_the_warehouse_given(
    warehouse: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.argv", ["distressbench"])
    steps = cli.next_steps(argparse.Namespace(warehouse=warehouse))
    assert steps[0] == "next:"
    given = ["--warehouse", warehouse] if warehouse else []
    commands = [shlex.split(line.strip().split("    ")[0]) for line in steps[1:]]
    assert commands == [
        ["distressbench", "report", *given],
        ["distressbench", "tables", *given],
        ["distressbench", "sql", cli.FIRST_QUERY, *given],
    ]


def test_the_headline_diff_never_prints_minus_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / "w.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.execute("create schema marts")
        connection.execute(
            "create table marts.headline_metrics as select * from (values "
            "('best', 0.8838, 0.86, 0.90, 0.884, 1), "
            "('median', 0.7154, 0.70, 0.73, 0.714, 2)"
            ") as t(metric, value, ci_low, ci_high, paper_value, display_order)"
        )
    print_summary(database, "95%", published=False)
    lines = capsys.readouterr().out.splitlines()[:3]  # the table; the anchored scores are not in this file
    assert [line.split()[-1] for line in lines] == ["diff", "+0.000", "+0.001"]


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (UsageError("x"), 2),
        (WarehouseMissing("x"), 2),
        (NotAWarehouse("x"), 2),
        (SqlRefused("x"), 1),
        (QueryFailed("x"), 1),
        (UnknownId("x"), 1),
        (PackRefused([]), 1),
        (SubmissionRefused([]), 1),
        (ImportRefused(["x"]), 1),
        (StageFailed("gate", "x"), 1),
        (DbtFailed("x"), 1),
        (AgreementInputError("x"), 1),
        (CalibrationInputError("x"), 1),
        (BootstrapInputError("x"), 1),
    ],
)
def test_every_project_error_carries_its_exit_code(error: DistressbenchError, code: int) -> None:
    assert isinstance(error, DistressbenchError) and error.exit_code == code


def test_cli_prints_a_project_error_as_one_line_with_its_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise DistressbenchError("first\n  second", exit_code=3)

    monkeypatch.setattr("distressbench.outputs.tables.export.export_tables", refused)
    assert cli.main(["tables", "--out", str(tmp_path / "t")]) == 3
    assert capsys.readouterr().err == "tables: first second\n"


def test_cli_prints_an_error_one_line_per_cause(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Its causes before its message, its notes after it (a note keeps its indent); a stage's
    failure names the build itself, so its line has no "build: " before it."""

    def refused(*args: object, **kwargs: object) -> None:
        error = DistressbenchError("refused, 2 problem(s)", causes=["skipped, a.eval", "b.eval:\n  no reply"])
        error.add_note("nothing was written")
        raise error

    monkeypatch.setattr("distressbench.outputs.tables.export.export_tables", refused)
    assert cli.main(["tables", "--out", str(tmp_path / "t")]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "tables: skipped, a.eval",
        "tables: b.eval: no reply",
        "tables: refused, 2 problem(s)",
        "nothing was written",
    ]

    failed = StageFailed("gate", "2 check(s):\n  one\n  two\nfull report: r.json")
    failed.add_note("the published warehouse w.duckdb is unchanged")
    assert cli.error_lines("build", failed) == [
        "build failed at stage 'gate': 2 check(s):",
        "  one",
        "  two",
        "full report: r.json",
        "the published warehouse w.duckdb is unchanged",
    ]


def test_the_summary_after_a_build_reads_the_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The headline metrics, the anchored scores and the task-set note: one read-only connection."""
    database = tmp_path / "w.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.execute("create schema marts")
        connection.execute(
            "create table marts.headline_metrics as select 'best' as metric, 0.5 as value, 0.4 as ci_low, "
            "0.6 as ci_high, null as paper_value, 1 as display_order"
        )
        connection.execute(
            "create table marts.anchored_headline_metrics as select 'best_model_score' as metric, 0.45 as "
            "anchored_value, 0.3 as anchored_ci_low, 0.6 as anchored_ci_high, 0.5 as value, 0.4 as ci_low, "
            "0.6 as ci_high, 1 as display_order"
        )
        connection.execute(
            "create table marts.release_comparison as select 'r0' as previous_release_id, 20 as n_tasks, "
            "30 as previous_n_tasks, 0 as n_tasks_added, 10 as n_tasks_removed, false as is_comparable"
        )
    opened: list[tuple[str, bool]] = []
    connect = duckdb.connect

    def counted(path: str, read_only: bool = False) -> duckdb.DuckDBPyConnection:
        opened.append((path, read_only))
        return connect(path, read_only=read_only)

    monkeypatch.setattr("distressbench.publish.pipeline.duckdb.connect", counted)
    print_summary(database, "90%", published=True)
    assert opened == [(str(database), True)]
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[2:4] == ["90%", "CI"] and lines[1].split()[:2] == ["best", "0.500"]
    assert lines[2] == "anchored to the clinicians (90% CI), beside the judge's:"
    assert lines[3].split() == [
        "anchored",
        "best_model_score",
        "0.450",
        "[0.300,",
        "0.600]",
        "judge",
        "0.500",
        "[0.400,",
        "0.600]",
    ]
    assert lines[4].startswith("note: this release's 20 tasks are not the previous release's 30 (r0: 0 added")
