"""Read-only access to the published warehouse, for analysts and the CLI."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb
import pandas as pd


class WarehouseMissing(FileNotFoundError):
    """No published warehouse at the given path."""


def connect_read_only(warehouse: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection: any number may be open while a new release is published."""
    if not warehouse.exists():
        raise WarehouseMissing(
            f"no warehouse at {warehouse}: run `distressbench build` first, "
            "or point --warehouse / DISTRESSBENCH_WAREHOUSE at one"
        )
    return duckdb.connect(str(warehouse), read_only=True)


def query(sql: str, warehouse: Path) -> pd.DataFrame:
    """Run one read-only query and return its result."""
    with connect_read_only(warehouse) as connection:
        return connection.sql(sql).df()


def print_query(sql: str, warehouse: Path) -> int:
    """The `distressbench sql` command: print the result as a table; exit code 0, 1 or 2."""
    try:
        with connect_read_only(warehouse) as connection:
            relation = connection.sql(sql)
            if relation is None:
                return 0
            frame = relation.df()
    except WarehouseMissing as error:
        print(f"sql: {error}", file=sys.stderr)
        return 2
    except duckdb.Error as error:
        print(f"sql: {error}", file=sys.stderr)
        return 1
    with pd.option_context("display.max_rows", 200, "display.max_columns", 50, "display.width", 200):
        print(frame.to_string(index=False) if len(frame) else f"(no rows) columns: {', '.join(frame.columns)}")
    return 0
