"""`distressbench tables`: every paper table read from a warehouse and written in one format."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from distressbench.outputs.tables.formatting import Wording
from distressbench.outputs.tables.load import load_tables
from distressbench.outputs.tables.render import to_csv, to_latex, to_markdown
from distressbench.outputs.tables.table import Table
from distressbench.outputs.warehouse import connect_read_only

FORMATS: dict[str, str] = {"csv": "csv", "md": "md", "latex": "tex"}
RENDERERS: dict[str, Callable[[Table], str]] = {"csv": to_csv, "md": to_markdown, "latex": to_latex}


def rendered_tables(warehouse: Path, wording: Wording, *, fmt: str) -> list[tuple[str, str]]:
    """Every paper table in one format (csv, md or latex): (file name, text), in table order;
    `wording`: the dbt vars the captions and headers print."""
    if fmt not in RENDERERS:
        raise ValueError(f"unknown table format {fmt!r}: choose one of {', '.join(RENDERERS)}")
    with connect_read_only(warehouse) as connection:
        tables = load_tables(connection, wording)
    return [(f"{table.spec.stem}.{FORMATS[fmt]}", RENDERERS[fmt](table)) for table in tables]


def export_tables(warehouse: Path, wording: Wording, *, fmt: str, out_dir: Path) -> list[Path]:
    """Write every paper table in one format (csv, md or latex) to out_dir; return the files."""
    rendered = rendered_tables(warehouse, wording, fmt=fmt)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in rendered:
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def tables_text(warehouse: Path, wording: Wording, *, fmt: str) -> str:
    """Every paper table in one text (`tables --out -`): the tables one after another, a blank
    line apart; in CSV each after a line `# <its file name>`, since CSV has no title."""
    return "\n".join(
        (f"# {name}\n" if fmt == "csv" else "") + text for name, text in rendered_tables(warehouse, wording, fmt=fmt)
    )
