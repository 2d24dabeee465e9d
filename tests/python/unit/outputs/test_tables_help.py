"""The `tables` command's help: the default folder and stdout."""

from __future__ import annotations

import pytest

from distressbench import cli

# --------------------------------------------------------------------------- export


def test_the_help_names_the_default_folder_and_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["tables", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: reports/tables)" in text and "- prints every table to stdout" in text
