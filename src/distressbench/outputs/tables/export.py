"""`distressbench tables`: every paper table read from a warehouse and written in one format."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from distressbench.outputs.tables.load import load_tables
from distressbench.outputs.tables.render import to_csv, to_latex, to_markdown
from distressbench.outputs.tables.table import Table
from distressbench.outputs.warehouse import connect_read_only

FORMATS: dict[str, str] = {"csv": "csv", "md": "md", "latex": "tex"}
RENDERERS: dict[str, Callable[[Table], str]] = {"csv": to_csv, "md": to_markdown, "latex": to_latex}


def export_tables(warehouse: Path, *, fmt: str, out_dir: Path) -> list[Path]:
    """Write every paper table in one format (csv, md or latex) to out_dir; return the files."""
    if fmt not in RENDERERS:
        raise ValueError(f"unknown table format {fmt!r}: choose one of {', '.join(RENDERERS)}")
    with connect_read_only(warehouse) as connection:
        tables = load_tables(connection)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for table in tables:
        path = out_dir / f"{table.spec.stem}.{FORMATS[fmt]}"
        path.write_text(RENDERERS[fmt](table), encoding="utf-8")
        written.append(path)
    return written
