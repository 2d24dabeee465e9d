"""The gate's staging build (distressbench.gate.staging): a model's own hooks run as dbt runs them,
and the replies' blank test (is_blank) reads every kind of white space."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from distressbench.gate import staging
from distressbench.release import contract
from distressbench.synth.generate import SynthConfig, write_release


class _Recording:
    """A DuckDB connection that keeps every statement it runs."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self.connection = connection
        self.statements: list[str] = []

    def execute(self, sql: str, *args: object) -> duckdb.DuckDBPyConnection:
        self.statements.append(sql)
        return self.connection.execute(sql, *args)


def test_replies_are_built_between_their_hooks_and_blank_means_white_space_only(tmp_path: Path) -> None:
    release = write_release(tmp_path / "release", SynthConfig(seed=3, n_tasks=12, n_models=2))
    responses = pq.read_table(release / "responses.parquet")
    contents = responses["content"].to_pylist()
    contents[:4] = ["\x0c\r \t\n", " \n\tnot blank", "", "ends in white space \n"]
    column = responses.schema.get_field_index("content")
    edited = responses.set_column(column, "content", pa.array(contents, pa.string()))
    pq.write_table(edited, release / "responses.parquet")
    first = responses["response_id"].to_pylist()[:4]
    tables = {t: release / contract.file_name(t) for t in contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES}
    tables = {t: p for t, p in tables.items() if p.exists()}
    with duckdb.connect() as connection:
        readable = staging.register_sources(connection, tmp_path / "links", tables, release / contract.MANIFEST)
        recording = _Recording(connection)
        assert staging.build(recording, readable) == {}
        (setting,) = connection.execute("select current_setting('force_compression')").fetchone()
        blank = dict(
            connection.execute(
                "select response_id, is_empty from staging.stg_release__responses"
                " where response_id in (?, ?, ?, ?)",
                first,
            ).fetchall()
        )
    replies = "create or replace table staging.stg_release__responses"
    built = [i for i, s in enumerate(recording.statements) if s.startswith(replies)]
    assert len(built) == 1
    before, after = recording.statements[built[0] - 1], recording.statements[built[0] + 1]
    assert (before, after) == ("set force_compression = 'zstd'", "reset force_compression")
    assert setting == "auto"  # nothing built after the replies is stored as they are
    assert sum("force_compression" in s for s in recording.statements) == 2
    assert [blank[r] for r in first] == [True, False, True, False]
