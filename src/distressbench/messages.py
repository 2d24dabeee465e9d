"""How a message shows what a user gave it: a task id, a query, a path, a value of a
release. A message quotes at most a readable prefix of any such input and says how long the
whole was, so a 10,000-character argument never comes back as a 10,000-character line.
Release text reaches a terminal or a page only through `printable` (or `one_line`), which
shows control characters, ANSI escapes and bidirectional overrides as escapes; `display_width`
measures it in terminal columns."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable

# The most characters of one input a message quotes.
INPUT_PREFIX = 60
# The most characters of one error line; longer lines are cut the same way.
LINE_PREFIX = 300

# Format characters that reorder or hide text in a terminal (bidirectional controls).
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Format characters that are harmless and needed by some scripts and emoji (ZWNJ, ZWJ).
_KEPT_FORMAT = frozenset("\u200c\u200d")


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


def printable(text: str | None) -> str:
    """Release text made safe to print: newlines kept (CR LF and the Unicode line and
    paragraph separators become one), tabs become spaces, other white space a space, and
    every other control, format or unassigned character is shown as its escape (`\\x1b`)."""
    if text is None:
        return ""
    if text.isprintable():  # no control, format, separator or unassigned character
        return text
    text = text.replace("\r\n", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    out: list[str] = []
    for ch in text:
        if ch == "\n":
            out.append(ch)
        elif ch == "\t":
            out.append("    ")
        elif ch in _KEPT_FORMAT or (ch.isprintable() and ch not in _BIDI_CONTROLS):
            out.append(ch)
        elif unicodedata.category(ch) == "Zs":
            out.append(" ")
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def one_line(value: str | None) -> str:
    """An id or label to show on one line: printable, a newline shown as `\\n`."""
    return printable(value).replace("\n", "\\n")
