"""Release history: carry the results of every earlier release into the file being built.

Before dbt builds a release into a new database file, `carry_forward` opens the currently
published file read-only and copies into the new file's schema `history` the published
release's own results (its marts, stamped with when it was published) and the history it
carries itself, so every published file holds every release published before it into the
same warehouse. The tables and their columns are the dbt var `history_tables`
(dbt_project.yml), the one definition the on-run-start macro create_history_tables also
reads; a column the older file lacks is carried as null, a column it has beyond them is left
out. The published release replaces any older history rows of its own release id (a
release republished with --force keeps only its latest results).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import duckdb

from distressbench.dbt.relations import HEADLINE_METRICS
from distressbench.settings import Settings

SCHEMA = "history"
PUBLISHED = "published"  # the alias the published file is attached under
RELEASES = "releases"  # the history table of releases; the others hold mart rows


# table -> column -> type
Tables = Mapping[str, Mapping[str, str]]


def history_tables(settings: Settings) -> Tables:
    """table -> column -> type, from the dbt var `history_tables`."""
    return settings.var("history_tables")


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def create_tables(connection: duckdb.DuckDBPyConnection, tables: Tables) -> None:
    """Schema `history` and its `tables`, empty, where absent."""
    connection.execute(f"create schema if not exists {SCHEMA}")
    for table, columns in tables.items():
        definition = ", ".join(f"{_ident(c)} {t}" for c, t in columns.items())
        connection.execute(f"create table if not exists {SCHEMA}.{_ident(table)} ({definition})")


def _columns(connection: duckdb.DuckDBPyConnection, schema: str, table: str) -> set[str] | None:
    """The columns of PUBLISHED.schema.table, or None when it has no such table."""
    rows = connection.execute(
        "select column_name from duckdb_columns() where database_name = ? and schema_name = ? and table_name = ?",
        [PUBLISHED, schema, table],
    ).fetchall()
    return {name for (name,) in rows} or None


def _own_record(connection: duckdb.DuckDBPyConnection) -> tuple[str, str | None, str | None] | None:
    """(release_id, published_at, manifest_sha256) of the published file's own release."""
    if _columns(connection, "meta", "published_releases") is not None:
        rows = connection.execute(
            f"select release_id, published_at, manifest_sha256 from {PUBLISHED}.meta.published_releases"
            " order by rowid desc limit 1"
        ).fetchall()
        if rows:
            return rows[0]
    if _columns(connection, "marts", "headline_metrics") is not None:
        rows = connection.execute(f"select distinct release_id from {PUBLISHED}.{HEADLINE_METRICS}").fetchall()
        if len(rows) == 1:
            return rows[0][0], None, None
    return None


def _select(columns: Mapping[str, str], present: set[str], overrides: dict[str, str]) -> str:
    """The history table's columns from a source with `present` columns: overrides first, then
    the source's own column, else null."""
    parts = []
    for column, data_type in columns.items():
        if column in overrides:
            value = overrides[column]
        elif column in present:
            value = _ident(column)
        else:
            value = "null"
        parts.append(f"cast({value} as {data_type}) as {_ident(column)}")
    return ", ".join(parts)


def carry_forward(published: Path | None, building: Path, tables: Tables) -> dict[str, int]:
    """Create the history `tables` in `building` and fill them from `published` (None: a fresh
    warehouse, the tables stay empty). Returns rows per history table."""
    with duckdb.connect(str(building)) as connection:
        create_tables(connection, tables)
        if published is not None:
            connection.execute(f"attach {_literal(str(published))} as {PUBLISHED} (read_only)")
            try:
                _copy(connection, tables)
            finally:
                connection.execute(f"detach {PUBLISHED}")
        return {
            table: connection.execute(f"select count(*) from {SCHEMA}.{_ident(table)}").fetchall()[0][0]
            for table in tables
        }


def _copy(connection: duckdb.DuckDBPyConnection, tables: Tables) -> None:
    own = _own_record(connection)
    own_id = own[0] if own is not None else None
    for table, columns in tables.items():
        target = f"{SCHEMA}.{_ident(table)}"
        carried = _columns(connection, SCHEMA, table)
        if carried is not None:
            connection.execute(
                f"insert into {target} select {_select(columns, carried, {})}"
                f" from {PUBLISHED}.{SCHEMA}.{_ident(table)} where release_id is distinct from ?",
                [own_id],
            )
        if own is None:
            continue
        if table == RELEASES:
            connection.execute(
                f"insert into {target} (release_id, published_at, manifest_sha256) values (?, ?, ?)", list(own)
            )
            continue
        mart = _columns(connection, "marts", table)
        if mart is not None:
            stamp = {"published_at": "?"}
            connection.execute(
                f"insert into {target} select {_select(columns, mart, stamp)} from {PUBLISHED}.marts.{_ident(table)}",
                [own[1]],
            )
