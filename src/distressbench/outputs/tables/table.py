"""What a table is: its definition (`TableSpec`, its `Column`s and `Pivot`) and, once loaded,
its raw rows (`Table`), which give every renderer the same formatted cells."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from distressbench.outputs.tables.formatting import FORMATTERS, Wording


@dataclass(frozen=True)
class Column:
    """A display column: a header and how to format one or more raw fields."""

    header: str
    fmt: str
    sources: tuple[str, ...]
    group: str | None = None  # a spanner over adjacent columns (LaTeX, HTML)
    latex_header: str | None = None
    collapse: bool = False  # blank a value that repeats the row above (and all collapse columns left of it)

    @property
    def numeric(self) -> bool:
        return self.fmt != "text"


@dataclass(frozen=True)
class Pivot:
    """Spread a long reporting model into one raw field and one display column per key.

    The model has the `index` fields, then `pivot_key` and `pivot_value` (and, with
    `interval`, `pivot_ci_low` and `pivot_ci_high`: each column then shows the value with its
    interval, and the raw fields of key k are k, k_ci_low and k_ci_high); `columns` names
    the reporting model that lists the columns and its key, header and order columns (the
    spanner is its `column_group`)."""

    index: tuple[str, ...]
    columns: tuple[str, str, str, str]
    fmt: str = "pct"
    field_prefix: str = ""
    group_in_markdown: bool = True  # Markdown has no spanners: append the group to the header
    interval: bool = False  # the long rows carry pivot_ci_low and pivot_ci_high


@dataclass(frozen=True)
class TableSpec:
    key: str
    slug: str
    title: str
    caption: str
    model: str  # the reporting model (schema reporting) holding its rows, in row_order
    columns: tuple[Column, ...]
    pivot: Pivot | None = None
    wide: bool = False  # LaTeX: resize to the text width and turn the pivot headers

    @property
    def stem(self) -> str:
        return f"{self.key.lower()}_{self.slug}"

    def worded(self, wording: Wording) -> TableSpec:
        """This table with the dbt vars its title, caption and headers name filled in."""
        columns = tuple(
            replace(c, header=wording.fill(c.header), group=c.group and wording.fill(c.group)) for c in self.columns
        )
        return replace(self, title=wording.fill(self.title), caption=wording.fill(self.caption), columns=columns)


@dataclass(frozen=True)
class Table:
    """One loaded table: raw fields and rows (what CSV writes) and display columns."""

    spec: TableSpec
    fields: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    columns: tuple[Column, ...]
    _index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._index.update({name: i for i, name in enumerate(self.fields)})

    def get(self, row: tuple[Any, ...], name: str) -> Any:
        return row[self._index[name]]

    def column_values(self, name: str) -> list[Any]:
        i = self._index[name]
        return [row[i] for row in self.rows]

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.fields, row, strict=False)) for row in self.rows]

    def sections(self) -> list[str]:
        """Which block each row belongs to (renderers draw a rule between blocks)."""
        if "row_group" not in self._index:
            return ["" for _ in self.rows]
        return [_SECTION_OF.get(g, g) for g in self.column_values("row_group")]

    def cells(self) -> list[list[str]]:
        """The formatted display cells, row by row."""
        full = [[FORMATTERS[c.fmt](*(self.get(row, s) for s in c.sources)) for c in self.columns] for row in self.rows]
        shown = [list(cells) for cells in full]
        collapsing = [i for i, c in enumerate(self.columns) if c.collapse]
        sections = self.sections()
        for r in range(1, len(full)):
            if sections[r] != sections[r - 1]:
                continue
            for i in collapsing:
                if all(full[r][j] == full[r - 1][j] for j in collapsing if j <= i):
                    shown[r][i] = ""
        return shown


_SECTION_OF = {"best": "summary", "median": "summary", "pooled": "summary"}
