"""Read-only access to the published warehouse, for analysts and the CLI.

`distressbench sql` runs in a sandbox: the file is opened read-only, DuckDB's external
access is off (no host file is read or written, no extension is installed or loaded, no
network), the configuration is locked, and only statements that read run (select and
describe, explain of a select, the pragmas that describe the file); attach, copy, export,
install, load, set and every write are refused before anything runs. Unqualified names
resolve in the marts schema (`show tables` lists the marts); every other schema stays
readable by its qualified name (`show all tables` lists them all). A file from before
the warehouse was self-contained still has views over its release folder: that folder
alone stays readable. harlequin or Python on the file is the analyst's own full-power tool.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import json
import math
import os
import re
import stat
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import duckdb

from distressbench.errors import DistressbenchError, UsageError
from distressbench.messages import display_width, one_line
from distressbench.outputs.tables.render import md_escape

if TYPE_CHECKING:
    import pandas as pd

# Bytes 8..11 of every DuckDB database file (the main header's magic).
_DUCKDB_MAGIC = b"DUCK"
_DUCKDB_MAGIC_OFFSET = 8
# What `distressbench sql` runs; anything else is refused (see SqlRefused). EXPLAIN runs
# only over a select (EXPLAIN ANALYZE executes its statement), PRAGMA only the ones that
# describe the file.
READING_PRAGMAS = frozenset(
    {"table_info", "show", "show_tables", "show_tables_expanded", "database_size", "storage_info", "version"}
)
_EXPLAIN = re.compile(r"\s*explain(?:\s+analyze)?\s+(.*)", re.IGNORECASE | re.DOTALL)
_PRAGMA = re.compile(r"\s*pragma\s+(\w+)", re.IGNORECASE)
_USE = re.compile(r"\s*use\b", re.IGNORECASE)
NULL_TEXT = "NULL"
# The most rows `distressbench sql` prints as a table; a note says when there are more.
MAX_ROWS = 200
# Rows fetched at once for the formats that print every row.
BATCH_ROWS = 10_000
# Unqualified names (and `show tables`) find the documented marts.
USE_MARTS = "use marts"


class WarehouseMissing(UsageError, FileNotFoundError):
    """No published warehouse at the given path."""


class NotAWarehouse(UsageError, ValueError):
    """The path exists but is not a DuckDB database file."""


class SqlRefused(DistressbenchError, ValueError):
    """A statement `distressbench sql` does not run."""


class QueryFailed(DistressbenchError):
    """DuckDB could not run a query (a name it does not know, a type mismatch)."""


def is_duckdb_file(path: Path) -> bool:
    """A regular file (after following symlinks) that starts with a DuckDB header. Never
    opens a FIFO or device: the type is checked first."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with path.open("rb") as handle:
            header = handle.read(_DUCKDB_MAGIC_OFFSET + len(_DUCKDB_MAGIC))
    except OSError:
        return False
    return header[_DUCKDB_MAGIC_OFFSET:] == _DUCKDB_MAGIC


def check_warehouse(warehouse: Path) -> None:
    """Raise WarehouseMissing or NotAWarehouse unless `warehouse` is a DuckDB file."""
    if not warehouse.exists():
        raise WarehouseMissing(
            f"no warehouse at {warehouse}: run `distressbench build` first, "
            "or point --warehouse / DISTRESSBENCH_WAREHOUSE at one"
        )
    if not is_duckdb_file(warehouse):
        kind = "a directory" if warehouse.is_dir() else "not a DuckDB database file"
        raise NotAWarehouse(f"{warehouse} is {kind}, not a published warehouse")


def _require_marts(connection: duckdb.DuckDBPyConnection, warehouse: Path) -> duckdb.DuckDBPyConnection:
    """The connection, if the file holds the marts; otherwise closed, and NotAWarehouse."""
    # fetchall, not fetchone: an unfinished result blocks the connection's next statement
    ((n_marts,),) = connection.execute("select count(*) from duckdb_schemas() where schema_name = 'marts'").fetchall()
    if not n_marts:
        connection.close()
        raise NotAWarehouse(f"{warehouse} is a DuckDB file without the marts schema, not a published warehouse")
    return connection


def connect_read_only(warehouse: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection: any number may be open while a new release is published.
    Unqualified names resolve in the marts."""
    check_warehouse(warehouse)
    connection = _require_marts(duckdb.connect(str(warehouse), read_only=True), warehouse)
    connection.execute(USE_MARTS)
    return connection


def _view_directories(connection: duckdb.DuckDBPyConnection) -> list[str]:
    """The release folder, when the file still holds views that read it (a file built
    before the warehouse became self-contained); otherwise none. A self-contained file has
    views too (over its own tables): only a view that reads files counts."""
    ((n_views,),) = connection.execute(
        "select count(*) from duckdb_views() where not internal "
        "and (contains(lower(sql), 'read_parquet(') or contains(lower(sql), 'read_json'))"
    ).fetchall()
    if not n_views:
        return []
    try:
        ((release_dir,),) = connection.execute(
            "select last(release_dir order by rowid) from meta.published_releases"
        ).fetchall()
    except duckdb.Error:
        return []
    return [str(Path(release_dir)) + os.sep] if release_dir else []


def connect_sandboxed(warehouse: Path) -> duckdb.DuckDBPyConnection:
    """The connection `distressbench sql` uses: read-only, no external access, locked, and
    unqualified names resolve in the marts."""
    check_warehouse(warehouse)
    connection = duckdb.connect(
        str(warehouse),
        read_only=True,
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )
    try:
        _require_marts(connection, warehouse)
        connection.execute(USE_MARTS)
        directories = _view_directories(connection)
        if directories:
            connection.execute("set allowed_directories = ?", [directories])
        connection.execute("set enable_external_access = false")
        connection.execute("set allow_community_extensions = false")
        connection.execute("set lock_configuration = true")
    except BaseException:
        connection.close()
        raise
    return connection


def _refusal(connection: duckdb.DuckDBPyConnection, sql: str, kind: str) -> str | None:
    """Why a statement of this type and text is refused, or None when it only reads."""
    if kind == "SELECT":
        return None
    if kind == "EXPLAIN":
        match = _EXPLAIN.match(sql)
        inner = connection.extract_statements(match.group(1)) if match else []
        if len(inner) == 1 and inner[0].type.name == "SELECT":
            return None
        return "refused an EXPLAIN of anything but a select"
    if kind == "PRAGMA":
        match = _PRAGMA.match(sql)
        if match and match.group(1).lower() in READING_PRAGMAS:
            return None
        return f"refused this PRAGMA (allowed: {', '.join(sorted(READING_PRAGMAS))})"
    if kind == "SET" and _USE.match(sql):
        return (
            "refused `use`, which would change the schema unqualified names read (always marts); "
            "name the schema in the query instead, as in `select * from main.some_table`"
        )
    return f"refused this {kind} statement"


def reading_statements(connection: duckdb.DuckDBPyConnection, sql: str) -> list[str]:
    """The statements of `sql`, as text, parsed (not run) on `connection`; SqlRefused names
    the first that does not only read."""
    try:
        statements = connection.extract_statements(sql)
    except duckdb.Error as error:
        raise SqlRefused(duckdb_message(error)) from error
    if not statements:
        raise SqlRefused("no statement to run")
    for statement in statements:
        refusal = _refusal(connection, statement.query, statement.type.name)
        if refusal is not None:
            raise SqlRefused(
                f"{refusal}: `distressbench sql` only reads (select, explain, describing pragmas); "
                "open the file with harlequin or Python for anything else (docs/querying.md)"
            )
    return [statement.query for statement in statements]


def query(sql: str, warehouse: Path) -> pd.DataFrame:
    """Run one read-only query and return its result."""
    with connect_read_only(warehouse) as connection:
        return connection.sql(sql).df()


def _cell(value: object) -> str:
    """A value as one cell of the printed table: NULL for null, else on one line and safe to
    print (`messages.one_line`)."""
    return NULL_TEXT if value is None else one_line(str(value))


def format_table(names: list[str], rows: list[tuple[object, ...]]) -> str:
    """The rows as a plain-text table: a header line, then one line per row, each column
    right-aligned to its widest cell (in terminal columns: a wide character takes two) and
    columns two spaces apart."""
    lines = [[_cell(name) for name in names]] + [[_cell(value) for value in row] for row in rows]
    measured = [[(text, display_width(text)) for text in line] for line in lines]
    widths = [max(width for _, width in column) for column in zip(*measured, strict=True)]
    return "\n".join(
        "  ".join(" " * (width - used) + text for (text, used), width in zip(line, widths, strict=True))
        for line in measured
    )


def duckdb_message(error: BaseException) -> str:
    """DuckDB's message up to its excerpt of the query (`LINE 1: ...`): the error line and any
    hint DuckDB gives under it (`Did you mean "model_scores"?`, `Candidate bindings: ...`)."""
    kept: list[str] = []
    for line in str(error).splitlines():
        if not line.strip() or line.startswith("LINE "):
            break
        kept.append(line.strip())
    return " ".join(kept) or type(error).__name__


def _display_cell(value: object) -> str:
    """A value as the table shows it: a float rounded to six significant digits (never
    `-0`), anything else as `_cell` shows it."""
    if isinstance(value, float):
        return format(value + 0.0 if value == 0 else value, ".6g")
    return _cell(value)


def _full_value(value: object) -> object:
    """A value for CSV, JSON or Markdown at full precision: a float as its shortest exact
    text (`repr`), a non-finite float as null, a date or time in ISO 8601, a decimal as
    its exact digits."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | uuid.UUID | bytes):
        return str(value)
    if isinstance(value, list | tuple):
        return [_full_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _full_value(item) for key, item in value.items()}
    return value


def _full_text(value: object) -> str:
    """A value as one CSV field or Markdown cell: empty for null, JSON for a list or struct."""
    value = _full_value(value)
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _write_table(out: TextIO, names: list[str], cursor: duckdb.DuckDBPyConnection) -> None:
    rows = cursor.fetchmany(MAX_ROWS + 1)
    if not rows:
        out.write(f"(no rows) columns: {', '.join(names)}\n")
        return
    out.write(format_table(names, [[_display_cell(v) for v in row] for row in rows[:MAX_ROWS]]) + "\n")
    if len(rows) > MAX_ROWS:
        out.write(f"(the first {MAX_ROWS} rows; add `limit` and `offset` to read others)\n")


def _batches(cursor: duckdb.DuckDBPyConnection) -> Iterator[list[tuple[object, ...]]]:
    while rows := cursor.fetchmany(BATCH_ROWS):
        yield rows


def _write_csv(out: TextIO, names: list[str], cursor: duckdb.DuckDBPyConnection) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(names)
    for rows in _batches(cursor):
        writer.writerows([_full_text(v) for v in row] for row in rows)


def _write_json(out: TextIO, names: list[str], cursor: duckdb.DuckDBPyConnection) -> None:
    out.write("[")
    first = True
    for rows in _batches(cursor):
        for row in rows:
            record = {name: _full_value(v) for name, v in zip(names, row, strict=True)}
            out.write(("\n" if first else ",\n") + json.dumps(record, ensure_ascii=False, allow_nan=False))
            first = False
    out.write("\n]\n")


def _write_markdown(out: TextIO, names: list[str], cursor: duckdb.DuckDBPyConnection) -> None:
    out.write("| " + " | ".join(md_escape(name) for name in names) + " |\n")
    out.write("|" + "---|" * len(names) + "\n")
    for rows in _batches(cursor):
        for row in rows:
            out.write("| " + " | ".join(md_escape(_full_text(v)) for v in row) + " |\n")


# The output formats of `distressbench sql`: the table rounds for display and stops at
# MAX_ROWS; the others print every row at full precision.
WRITERS: dict[str, Callable[[TextIO, list[str], duckdb.DuckDBPyConnection], None]] = {
    "table": _write_table,
    "csv": _write_csv,
    "json": _write_json,
    "markdown": _write_markdown,
}


def print_query(sql: str, warehouse: Path, fmt: str = "table", out: TextIO | None = None) -> None:
    """The `distressbench sql` command: the result in `fmt` (a key of WRITERS) on `out`
    (stdout). Raises WarehouseMissing or NotAWarehouse (exit 2), SqlRefused or QueryFailed."""
    out = out or sys.stdout
    with connect_sandboxed(warehouse) as connection:
        statements = reading_statements(connection, sql)
        try:
            for statement in statements[:-1]:
                connection.execute(statement)
            cursor = connection.execute(statements[-1])
            names = [column[0] for column in cursor.description or []]
            if names:
                WRITERS[fmt](out, names, cursor)
        except duckdb.Error as error:
            raise QueryFailed(duckdb_message(error)) from error
