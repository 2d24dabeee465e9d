"""Reading a table from the warehouse: its reporting model's rows, in their row order, and a
`Pivot`'s long rows spread into one column per key of its column list."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

from distressbench.outputs.tables.formatting import Wording
from distressbench.outputs.tables.specs import TABLES
from distressbench.outputs.tables.table import Column, Pivot, Table, TableSpec

REPORTING_SCHEMA = "reporting"


def _pivot(
    spec: TableSpec,
    pivot: Pivot,
    names: list[str],
    rows: list[tuple[Any, ...]],
    connection: duckdb.DuckDBPyConnection,
) -> tuple[tuple[str, ...], list[tuple[Any, ...]], tuple[Column, ...]]:
    position = {name: i for i, name in enumerate(names)}
    index_at = [position[name] for name in pivot.index]
    key_at = position["pivot_key"]
    model, key, header, order = pivot.columns
    spread = connection.execute(
        f"select {key}, {header}, column_group from {REPORTING_SCHEMA}.{model} order by {order}"
    ).fetchall()
    keys = [str(key) for key, _, _ in spread]
    suffixes = ("", "_ci_low", "_ci_high") if pivot.interval else ("",)
    value_names = ("pivot_value", "pivot_ci_low", "pivot_ci_high")[: len(suffixes)]
    values_at = [position[name] for name in value_names]
    fields = tuple(pivot.index) + tuple(f"{pivot.field_prefix}{key}{suffix}" for key in keys for suffix in suffixes)
    if len(set(fields)) != len(fields):
        clash = sorted({f for f in fields if fields.count(f) > 1})
        raise ValueError(f"table {spec.key}: pivot columns clash with its fields: {clash}")
    grouped: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:  # at most models x subcategories rows: small
        values = grouped.setdefault(tuple(row[i] for i in index_at), {})
        if row[key_at] is not None:
            values[str(row[key_at])] = tuple(row[i] for i in values_at)
    unknown = sorted({k for values in grouped.values() for k in values} - set(keys))
    if unknown:
        raise ValueError(
            f"table {spec.key}: {len(unknown)} pivot key(s) in the marts are missing from its column list, "
            f"e.g. {unknown[:3]}"
        )
    blank = (None,) * len(suffixes)
    wide = [index + sum((values.get(key, blank) for key in keys), ()) for index, values in grouped.items()]
    columns = spec.columns + tuple(
        Column(
            str(header),
            pivot.fmt,
            tuple(f"{pivot.field_prefix}{key}{suffix}" for suffix in suffixes),
            group=None if group is None else str(group),
        )
        for key, header, group in spread
    )
    return fields, wide, columns


def load_table(connection: duckdb.DuckDBPyConnection, spec: TableSpec) -> Table:
    """Read one table's reporting model, in its row order, and shape it."""
    result = connection.execute(f"select * exclude (row_order) from {REPORTING_SCHEMA}.{spec.model} order by row_order")
    names = [d[0] for d in result.description]
    rows = result.fetchall()
    if spec.pivot is None:
        return Table(spec, tuple(names), tuple(rows), spec.columns)
    fields, wide, columns = _pivot(spec, spec.pivot, names, rows, connection)
    return Table(spec, fields, tuple(wide), columns)


def load_tables(
    connection: duckdb.DuckDBPyConnection, wording: Wording, specs: Sequence[TableSpec] = TABLES
) -> list[Table]:
    """Every paper table (or those of `specs`), in order, with the dbt vars their words name
    filled in from `wording`."""
    return [load_table(connection, spec.worded(wording)) for spec in specs]
