"""How a message shows what a user gave it: a task id, a query, a path, a value of a
release. A message quotes at most a readable prefix of any such input and says how long the
whole was, so a 10,000-character argument never comes back as a 10,000-character line."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable

# The most characters of one input a message quotes.
INPUT_PREFIX = 60
# The most characters of one error line; longer lines are cut the same way.
LINE_PREFIX = 300


def shown(text: str, quote: Callable[[str], str] = repr, limit: int = INPUT_PREFIX) -> str:
    """An input as a message quotes it: `quote` of the whole when it is short; otherwise
    `quote` of its first `limit` characters, then '...' and the whole's length, outside the
    quotes (what is inside the quotes is always exactly what the input starts with)."""
    if len(text) <= limit:
        return quote(text)
    return f"{quote(text[:limit])}... ({len(text):,} characters)"


def json_quote(text: str) -> str:
    """Double-quoted, escapes visible, Unicode kept (how the gate quotes)."""
    return json.dumps(text, ensure_ascii=False)


def error_line(text: str) -> str:
    """An error message as one readable line: white space runs made one space, a longer
    line than LINE_PREFIX characters cut there (it says so, and how long the whole was)."""
    line = " ".join(text.split())
    if len(line) <= LINE_PREFIX:
        return line
    return f"{line[:LINE_PREFIX]}... (cut; {len(line):,} characters in all)"


def char_width(ch: str) -> int:
    """Columns one character takes in a terminal: 0 for a combining mark, 2 for a wide or
    full-width character (CJK, most emoji), else 1."""
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Columns the text takes in a terminal."""
    return sum(char_width(ch) for ch in text)
