"""The command line without a process: an unexpected error is one line, and the README's
command table names every option of every command."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from distressbench import cli

# --------------------------------------------------------------------------- --help


def test_the_readme_command_table_names_every_option_of_every_command() -> None:
    """README's table is where a new user looks first: each command's row names all its options."""
    (sub,) = [a for a in cli._parser()._actions if isinstance(a, argparse._SubParsersAction)]
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `distressbench ([\w-]+)(.*?)` \|", readme, re.MULTILINE))
    assert rows.keys() == sub.choices.keys()
    for name, parser in sub.choices.items():
        options = {o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help"}
        assert options <= set(re.findall(r"--[\w-]+", rows[name])), name


# --------------------------------------------------------------------------- one-line errors


def test_an_unexpected_error_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr("distressbench.outputs.tables.export.export_tables", broken)
    monkeypatch.delenv("DISTRESSBENCH_DEBUG", raising=False)
    assert cli.main(["tables", "--out", str(tmp_path / "t")]) == 1
    assert capsys.readouterr().err == "tables: something broke\n"


# --------------------------------------------------------------------------- the exit


def test_the_command_exits_with_mains_code_after_freezing_what_it_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """`run` freezes the collector's objects, then exits with the command's code (the exit's
    gain is measured in docs/benchmarks.md, "Kept, and why")."""
    done: list[str] = []
    monkeypatch.setattr(cli, "main", lambda: done.append("main") or 3)
    monkeypatch.setattr(cli.gc, "freeze", lambda: done.append("freeze"))
    with pytest.raises(SystemExit) as exited:
        cli.run()
    assert exited.value.code == 3 and done == ["main", "freeze"]
