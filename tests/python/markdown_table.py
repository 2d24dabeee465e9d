"""Reading the exported Markdown tables back, as a renderer reads their cells."""

from __future__ import annotations

import html
import re
from pathlib import Path

# a pipe that no backslash escapes separates cells; a backslash before ASCII punctuation escapes it
_CELL_SEPARATOR = re.compile(r"(?<!\\)\|")
_ESCAPED_PUNCTUATION = re.compile(r"\\([!-/:-@\[-`{-~])")


def read_markdown_table(path: Path) -> tuple[list[str], list[list[str]]]:
    """Header and body cells of the Markdown table in a file: escaped pipes kept apart,
    backslash escapes undone, HTML entities decoded."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("|")]

    def split(line: str) -> list[str]:
        cells = _CELL_SEPARATOR.split(line.strip())[1:-1]
        return [html.unescape(_ESCAPED_PUNCTUATION.sub(r"\1", cell.strip())) for cell in cells]

    return split(lines[0]), [split(line) for line in lines[2:]]
