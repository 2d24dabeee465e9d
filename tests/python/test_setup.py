"""scripts/setup says what it is doing, one line per step, and nothing when .venv is up to
date: run on a copy of the project whose .venv/bin/python only records what it is asked."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from distressbench import settings


def test_setup_prints_one_line_per_step_and_nothing_when_up_to_date(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    shutil.copy2(settings.PROJECT_ROOT / "scripts" / "setup", tmp_path / "scripts" / "setup")
    shutil.copy2(settings.PROJECT_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    fake = tmp_path / ".venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text('#!/bin/sh\necho "$*" >> "$(dirname "$0")/../asked"\n', encoding="utf-8")
    fake.chmod(0o755)

    def setup() -> str:
        done = subprocess.run(
            [str(tmp_path / "scripts" / "setup")], capture_output=True, text=True, check=False, timeout=60
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr
        return done.stdout

    lines = setup().splitlines()
    assert lines[0] == "setup: upgrading pip in .venv"
    assert lines[1].startswith(
        "setup: installing the project (editable) with its dev, spark, inspect and client extras"
    )
    assert len(lines) == 3 and lines[2].startswith("setup: done in ")
    assert (tmp_path / ".venv" / "asked").read_text(encoding="utf-8").count("-m pip install") == 2
    assert setup() == ""
