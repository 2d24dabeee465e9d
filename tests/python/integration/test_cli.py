"""The command line: `sql` reads and nothing else, `--help` names what exists, and every
error is one line and an exit code, never a traceback."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from distressbench import cli
from fixtures.cli_calls import sql

CLI = [sys.executable, "-m", "distressbench.cli"]


MARTS = (
    "cell_scores",
    "corpus_stats",
    "dimension_scores",
    "dimension_summary",
    "headline_metrics",
    "judge_calibration",
    "model_pair_differences",
    "model_rank_stats",
    "model_scores",
    "recognized_not_routed",
    "redteam_summary",
    "subcategory_scores",
    "turn_type_scores",
    "verdicts",
    "criterion_pass_rates",
    "cases",
    "conversation_turns",
    "release_changes",
    "headline_changes",
    "release_comparison",
    "release_tasks",
)


# a fresh warehouse has no earlier release
EMPTY_WITHOUT_HISTORY = ("release_changes", "headline_changes", "release_comparison")


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    """The stderr of a failed command, asserted to be one line with no traceback."""
    assert done.returncode in (1, 2), (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300)


# --------------------------------------------------------------------------- sql: read-only in fact


def test_every_mart_reads_through_sql(hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        names = {
            r[0]
            for r in connection.sql(
                "select table_name from information_schema.tables where table_schema = 'marts'"
            ).fetchall()
        }
    assert set(MARTS) <= names
    for mart in sorted(names):
        code, out, err = sql(hostile_warehouse, f"select count(*) as n from marts.{mart}", capsys)
        assert code == 0, (mart, err)
        assert int(out.split()[-1]) > 0 or mart in EMPTY_WITHOUT_HISTORY, (mart, out)


@pytest.mark.parametrize(
    ("statement", "refused"),
    [
        ("attach '{other}' as other", "refused this ATTACH statement"),
        ("copy marts.model_scores to '{target}'", "refused this COPY statement"),
        ("export database '{target}'", "refused this EXPORT statement"),
        ("install httpfs", "refused this LOAD statement"),
        ("load httpfs", "refused this LOAD statement"),
        ("set enable_external_access = true", "refused this SET statement"),
        ("create table main.t as select 1", "refused this CREATE statement"),
        ("select 1; drop table marts.model_scores", "refused this DROP statement"),
        ("explain analyze copy marts.model_scores to '{target}'", "refused an EXPLAIN of anything but a select"),
        ("pragma import_database('{target}')", "refused this PRAGMA"),
    ],
)
def test_sql_refuses_every_statement_that_is_not_a_read(
    hostile_warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], statement: str, refused: str
) -> None:
    other = tmp_path / "other.duckdb"
    shutil.copy(hostile_warehouse.resolve(), other)
    before = other.read_bytes()
    target = tmp_path / "out"
    code, out, err = sql(hostile_warehouse, statement.format(other=other, target=target), capsys)
    assert code == 1
    assert len(err.strip().splitlines()) == 1 and refused in err, err
    assert "harlequin" in err
    assert not target.exists()
    assert other.read_bytes() == before


@pytest.mark.parametrize(
    "statement",
    [
        "select * from read_csv('/etc/passwd')",
        "select content from read_text('/etc/hostname')",
        "select * from read_blob('/etc/passwd')",
        "select * from glob('/*')",
        "select * from read_parquet('{release_file}')",
    ],
)
def test_sql_reads_no_host_file(
    hostile_warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], statement: str
) -> None:
    outside = tmp_path / "outside.parquet"
    duckdb.sql(f"copy (select 1 as x) to '{outside}'")
    code, out, err = sql(hostile_warehouse, statement.format(release_file=outside), capsys)
    assert code == 1, out
    assert "disabled by configuration" in err and len(err.strip().splitlines()) == 1, err


def test_sql_configuration_is_locked(hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = sql(
        hostile_warehouse,
        "select current_setting('lock_configuration') as locked, current_setting('enable_external_access') as external",
        capsys,
    )
    assert code == 0, err
    assert out.split()[-2:] == ["True", "False"]


def test_sql_prints_null_as_null(hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = sql(
        hostile_warehouse,
        "select cast(null as double) as d, cast(null as varchar) as s, cast(null as integer) as i, 0.5 as half",
        capsys,
    )
    assert code == 0, err
    assert out.split()[-4:] == ["NULL", "NULL", "NULL", "0.5"]
    assert "NaN" not in out and "None" not in out


def test_show_tables_lists_the_marts_and_unqualified_names_read_them(
    hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = sql(hostile_warehouse, "show tables", capsys)
    assert code == 0, err
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        marts = {
            r[0]
            for r in connection.sql(
                "select table_name from information_schema.tables where table_schema = 'marts'"
            ).fetchall()
        }
    assert set(out.split()[1:]) == marts and set(MARTS) <= marts
    code, out, err = sql(hostile_warehouse, "select count(*) as n from model_scores", capsys)
    assert code == 0 and out.split() == ["n", "5"], err


def test_sql_reads_describe_and_explain(hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for statement in (
        "describe marts.model_scores",
        "explain select * from marts.model_scores",
        "pragma table_info('marts.model_scores')",
    ):
        code, out, err = sql(hostile_warehouse, statement, capsys)
        assert code == 0, (statement, err)
        assert out.strip(), statement


# --------------------------------------------------------------------------- --help


def test_help_lists_exactly_the_registered_commands() -> None:
    parser = cli._parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    done = run_cli("--help")
    assert done.returncode == 0
    listed = done.stdout.split("{", 1)[1].split("}", 1)[0].split(",")
    assert listed == list(sub.choices)
    assert {"synth", "gate", "build", "submit", "sql", "tables", "report", "show"} <= set(listed)
    assert re.search(r"\bbench\b", done.stdout) is None


# --------------------------------------------------------------------------- one-line errors


def test_gate_report_pointing_at_a_folder(good_release: Path, tmp_path: Path) -> None:
    line = one_line_error(run_cli("gate", str(good_release), "--report", str(tmp_path)))
    assert line == f"gate: --report {tmp_path} is a folder; give a file name"


def test_report_out_pointing_at_a_folder(hostile_warehouse: Path, tmp_path: Path) -> None:
    line = one_line_error(run_cli("report", "--warehouse", str(hostile_warehouse), "--out", str(tmp_path)))
    assert line == f"report: --out {tmp_path} is a folder; give a file name"


def test_tables_out_pointing_at_a_file(hostile_warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "file.txt"
    out.write_text("mine\n")
    line = one_line_error(run_cli("tables", "--warehouse", str(hostile_warehouse), "--out", str(out)))
    assert line == f"tables: --out {out} exists and is not a folder"
    assert out.read_text() == "mine\n"


def _warehouse_command_args(command: str, tmp_path: Path) -> list[str]:
    return {"sql": ["select 1"], "show": ["t1"]}.get(command, ["--out", str(tmp_path / "out")])


@pytest.mark.parametrize("command", ["tables", "report", "sql", "show"])
def test_a_missing_warehouse(command: str, tmp_path: Path) -> None:
    extra = _warehouse_command_args(command, tmp_path)
    line = one_line_error(run_cli(command, *extra, "--warehouse", str(tmp_path / "none.duckdb")))
    assert line.startswith(f"{command}: no warehouse at {tmp_path / 'none.duckdb'}")


@pytest.mark.parametrize("command", ["tables", "report", "sql", "show"])
@pytest.mark.parametrize("kind", ["text", "folder", "empty database"])
def test_a_warehouse_that_is_not_a_duckdb_file(command: str, kind: str, tmp_path: Path) -> None:
    warehouse = tmp_path / "w.duckdb"
    if kind == "text":
        warehouse.write_text("not a database\n")
    elif kind == "folder":
        warehouse.mkdir()
    else:
        duckdb.connect(str(warehouse)).close()
    extra = _warehouse_command_args(command, tmp_path)
    line = one_line_error(run_cli(command, *extra, "--warehouse", str(warehouse)))
    assert line.startswith(f"{command}: {warehouse} is ")
    assert line.endswith("not a published warehouse")
    if kind == "text":
        assert warehouse.read_text() == "not a database\n"


@pytest.mark.parametrize("missing", ["base release", "submission"])
def test_submit_with_a_missing_folder(missing: str, tmp_path: Path) -> None:
    folders = {"base release": tmp_path / "base", "submission": tmp_path / "submission"}
    folders["base release" if missing == "submission" else "submission"].mkdir()
    done = run_cli("submit", str(folders["base release"]), str(folders["submission"]), "--out", str(tmp_path / "out"))
    assert one_line_error(done) == f"submit: no such {missing} folder: {folders[missing]}"
    assert done.returncode == 2 and not (tmp_path / "out").exists()


def test_sql_cannot_overwrite_a_file_of_the_published_release(
    hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The release folder stays readable for a file whose views still read it; writing
    there (which would empty a staging view of the published warehouse) is refused."""
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        (release,) = connection.execute(
            "select last(release_dir order by rowid) from meta.published_releases"
        ).fetchone()
    tasks = Path(release) / "tasks.parquet"
    before = tasks.read_bytes()
    for statement in (
        f"copy (select * from marts.model_scores limit 0) to '{tasks}'",
        f"export database '{Path(release)}'",
    ):
        code, _, err = sql(hostile_warehouse, statement, capsys)
        assert code == 1 and "refused" in err, err
    assert tasks.read_bytes() == before


def test_sql_cannot_read_the_release_folder_of_a_self_contained_file(
    hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file's own views (marts.verdicts reads tables of the file) open no folder: the
    release it was built from is not readable through `sql`."""
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        ((release,),) = connection.execute(
            "select last(release_dir order by rowid) from meta.published_releases"
        ).fetchall()
        ((n_views,),) = connection.execute("select count(*) from duckdb_views() where not internal").fetchall()
    assert n_views > 0
    tasks = Path(release) / "tasks.parquet"
    code, out, err = sql(hostile_warehouse, f"select count(*) from read_parquet('{tasks}')", capsys)
    assert code == 1 and err, (out, err)
    code, out, _ = sql(hostile_warehouse, "select count(*) as n from marts.verdicts", capsys)
    assert code == 0 and out
