"""The renderers: a loaded `Table` as CSV (raw values), Markdown, LaTeX or HTML (formatted
cells), each escaping the release's text for its format."""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from typing import Any

from distressbench.outputs.tables.formatting import MINUS, MISSING
from distressbench.outputs.tables.table import Column, Table, TableSpec

# A text cell a spreadsheet would run as a formula starts with one of these; it is written
# with a leading apostrophe. Numbers are never text here (they come as int, float or
# Decimal from the marts), so a negative number stays a number and reads back exactly.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _csv_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return "" if value is None else value


def to_csv(table: Table) -> str:
    """Raw fields, raw values: fractions at full precision, empty for null."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.fields)
    writer.writerows([[_csv_value(v) for v in row] for row in table.rows])
    return buffer.getvalue()


# Backslash-escaped in a Markdown cell: the escape itself, the cell separator, and the marks of
# code, emphasis and strike-through, which would otherwise hide or restyle characters of an id.
_MD_ESCAPED = str.maketrans({c: "\\" + c for c in "\\|`*_~"})


def md_escape(value: str) -> str:
    """A Markdown table cell: HTML escaped (renderers pass raw HTML through, and '<' can then
    open no autolink), backslashes, pipes and inline marks escaped, no inline link or image
    ('](' escaped; brackets alone, as in an interval, stay as they are), whitespace runs
    (newlines included) folded to one space."""
    if not value:
        return value
    escaped = html.escape(value.translate(_MD_ESCAPED).replace("](", "\\]("), quote=False)
    return " ".join(escaped.split())


def to_markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table with the title and caption above it."""
    spec = table.spec
    suffix = spec.pivot is not None and spec.pivot.group_in_markdown
    headers = [f"{c.header} ({c.group.lower()})" if c.group and suffix else c.header for c in table.columns]
    lines = [f"**{spec.key}. {spec.title}.** {spec.caption}", ""]
    lines.append("| " + " | ".join(md_escape(h) for h in headers) + " |")
    lines.append("| " + " | ".join("---:" if c.numeric else ":---" for c in table.columns) + " |")
    lines.extend("| " + " | ".join(md_escape(v) for v in row) + " |" for row in table.cells())
    if not table.rows:
        lines.extend(["", "_No rows in this release._"])
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "|": r"\textbar{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    MINUS: "$-$",
    MISSING: "---",
    "×": r"$\times$",
    "†": r"$^{\dagger}$",
    "κ": r"$\kappa$",
    "α": r"$\alpha$",
    "τ": r"$\tau$",
    "≥": r"$\geq$",
    "\n": " ",
    "\r": " ",
}


def latex_escape(value: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in value)


_Span = tuple[str | None, int, int]  # (group, first index, count)


def _spans(columns: Sequence[Column]) -> list[_Span]:
    """Adjacent columns sharing a group: (group, first index, count)."""
    spans: list[_Span] = []
    for i, column in enumerate(columns):
        if spans and spans[-1][0] == column.group and column.group is not None:
            group, first, n = spans[-1]
            spans[-1] = (group, first, n + 1)
        else:
            spans.append((column.group, i, 1))
    return spans


def _latex_spanners(spans: Sequence[_Span]) -> list[str]:
    """The spanner row over grouped columns and its rules; nothing when no column has a group."""
    if not any(group for group, _, _ in spans):
        return []
    cells, rules = [], []
    for group, first, n in spans:
        if group is None:
            cells.extend([""] * n)
            continue
        cells.append(r"\multicolumn{" + str(n) + "}{c}{" + latex_escape(group) + "}")
        rules.append(r"\cmidrule(lr){" + f"{first + 1}-{first + n}" + "}")
    return [" & ".join(cells) + r" \\", " ".join(rules)]


def _latex_header(column: Column, *, wide: bool) -> str:
    """A column header; a wide table turns the pivot headers."""
    body = column.latex_header if column.latex_header is not None else latex_escape(column.header)
    return r"\rotatebox{90}{" + body + "}" if wide and column.group else body


def _latex_body(table: Table) -> list[str]:
    """The rows, a rule between blocks; one line saying so when there are none."""
    lines: list[str] = []
    sections = table.sections()
    for r, row in enumerate(table.cells()):
        if r and sections[r] != sections[r - 1]:
            lines.append(r"\midrule")
        lines.append(" & ".join(latex_escape(v) for v in row) + r" \\")
    if not table.rows:
        lines.append(r"\multicolumn{" + str(len(table.columns)) + r"}{c}{\emph{No rows in this release.}} \\")
    return lines


def to_latex(table: Table) -> str:
    """A booktabs table (needs \\usepackage{booktabs}; wide tables also graphicx)."""
    spec = table.spec
    columns = table.columns
    align = "".join("r" if c.numeric else "l" for c in columns)
    lines = [
        f"% {spec.key}. {spec.title} -- generated by `distressbench tables --format latex` from the marts.",
        r"\begin{table}[htbp]",
        r"\centering",
        r"\caption{" + latex_escape(f"{spec.title}. {spec.caption}") + "}",
        r"\label{tab:" + spec.stem.replace("_", "-") + "}",
    ]
    if spec.wide:
        lines.append(r"\resizebox{\textwidth}{!}{%")
    lines += [r"\begin{tabular}{" + align + "}", r"\toprule"]
    lines += _latex_spanners(_spans(columns))
    lines += [" & ".join(_latex_header(c, wide=spec.wide) for c in columns) + r" \\", r"\midrule"]
    lines += _latex_body(table)
    lines += [r"\bottomrule", r"\end{tabular}"]
    if spec.wide:
        lines.append("}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def html_id(spec: TableSpec) -> str:
    return f"table-{spec.key.lower()}"


def _html_spanners(spans: Sequence[_Span]) -> list[str]:
    """The spanner row over grouped columns; nothing when no column has a group."""
    if not any(group for group, _, _ in spans):
        return []
    cells = "".join(
        f'<th colspan="{n}"></th>' if group is None else f'<th colspan="{n}" class="spanner">{html.escape(group)}</th>'
        for group, _, n in spans
    )
    return [f"<tr>{cells}</tr>"]


def _html_body(table: Table) -> list[str]:
    """The rows, each classed by its row group and whether it starts a block; one row saying
    so when there are none."""
    out: list[str] = []
    sections = table.sections()
    groups = table.column_values("row_group") if "row_group" in table.fields else [""] * len(table.rows)
    for r, row in enumerate(table.cells()):
        classes = [f"row-{groups[r]}"] if groups[r] else []
        if r and sections[r] != sections[r - 1]:
            classes.append("block-start")
        attr = f' class="{" ".join(classes)}"' if classes else ""
        cells = "".join(
            f'<td class="{"num" if c.numeric else "txt"}">{html.escape(v)}</td>'
            for c, v in zip(table.columns, row, strict=False)
        )
        out.append(f"<tr{attr}>{cells}</tr>")
    if not table.rows:
        out.append(f'<tr><td colspan="{len(table.columns)}" class="empty">No rows in this release.</td></tr>')
    return out


def to_html(table: Table) -> str:
    """The table as HTML: its caption, then the <table> in a scrollable wrapper (the
    report's stylesheet styles both)."""
    spec = table.spec
    esc = html.escape
    ident = html_id(spec)
    out = [
        f'<div class="table-block"><p class="table-caption" id="{ident}-caption">'
        f"<strong>{esc(spec.key)}. {esc(spec.title)}.</strong> {esc(spec.caption)}</p>",
        f'<div class="table-wrap"><table id="{ident}" class="paper-table" aria-describedby="{ident}-caption">',
        "<thead>",
    ]
    out += _html_spanners(_spans(table.columns))
    out.append(
        "<tr>"
        + "".join(
            f'<th class="{"num" if c.numeric else "txt"}" scope="col">{esc(c.header)}</th>' for c in table.columns
        )
        + "</tr>"
    )
    out.append("</thead><tbody>")
    out += _html_body(table)
    out.append("</tbody></table></div></div>")
    return "\n".join(out)
