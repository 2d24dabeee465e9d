"""Every LaTeX table compiles with pdflatex, on the fixture warehouse whose ids and display
names hold LaTeX specials, markup and Cyrillic. pdflatex is a Debian package that
`scripts/setup --system-packages` installs (the README's test command and CI run it), so a
missing pdflatex fails here rather than skipping."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from distressbench.outputs.tables.export import export_tables
from distressbench.outputs.tables.specs import TABLES
from fixtures.hostile_warehouse import DISPLAY_NAMES
from fixtures.wording import WORDING

# What a paper needs for the tables: booktabs (the rules), graphicx (\resizebox, \rotatebox
# of the wide tables); T2A and utf8 for the Cyrillic of the fixture's model names.
PREAMBLE = r"""\documentclass{article}
\usepackage[T1,T2A]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{booktabs}
\usepackage{graphicx}
\begin{document}
"""


def _compile(document: Path) -> subprocess.CompletedProcess[str]:
    pdflatex = shutil.which("pdflatex")
    assert pdflatex, "pdflatex is not installed: run scripts/setup --system-packages"
    command = [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", document.name]
    return subprocess.run(command, cwd=document.parent, capture_output=True, text=True, timeout=120, check=False)


def test_every_latex_table_compiles(hostile_warehouse: Path, tmp_path: Path) -> None:
    written = export_tables(hostile_warehouse, WORDING, fmt="latex", out_dir=tmp_path)
    assert sorted(p.name for p in written) == sorted(f"{spec.stem}.tex" for spec in TABLES)
    for table in written:
        document = tmp_path / f"doc_{table.stem}.tex"
        document.write_text(PREAMBLE + f"\\input{{{table.name}}}\n\\end{{document}}\n", encoding="utf-8")
        result = _compile(document)
        log = document.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
        assert result.returncode == 0, f"{table.name}:\n" + result.stdout[-3000:]
        assert document.with_suffix(".pdf").stat().st_size > 1000, table.name
        assert "Missing character" not in log, table.name


def test_a_table_that_does_not_compile_fails(tmp_path: Path) -> None:
    """The check above can fail: an unescaped special stops pdflatex."""
    document = tmp_path / "broken.tex"
    body = "\\begin{tabular}{l}\n" + DISPLAY_NAMES[2] + " \\\\\n\\end{tabular}\n\\end{document}\n"
    document.write_text(PREAMBLE + body, encoding="utf-8")
    assert _compile(document).returncode != 0
