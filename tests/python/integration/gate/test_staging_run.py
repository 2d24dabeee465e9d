"""The release's staging models as the gate builds them (distressbench.dbt.staging.SqlStaging:
their SQL as dbt compiled it, hooks included, run by DuckDB) against dbt running the same
models: the same tables, and a file that cannot be read fails alike; the replies' blank test
(is_blank) reads every kind of white space."""

from __future__ import annotations

import functools
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from distressbench.dbt.compiled import GATE_DATABASE, staging_sql
from distressbench.dbt.relations import JUDGE_LABELS_AGGREGATE, staging_model, staging_models, staging_relation
from distressbench.dbt.staging import SqlStaging, StagingResult, link_folder
from distressbench.release import contract
from distressbench.settings import Settings
from distressbench.synth.config import SynthConfig
from distressbench.synth.generate import write_release
from fixtures.processes import dbt_on


def _dbt_staged(release: Path, folder: Path) -> tuple[Path, dict[str, str]]:
    """dbt's `run` of the release's staging models: its database, and each model's status."""
    database = folder / GATE_DATABASE
    dbt = dbt_on(release, database)
    try:
        outcome = dbt.invoke(["run", "--select", *staging_models(contract.release_files(release))])
    finally:
        dbt.stop()
    return database, {node.name: node.status for node in outcome.nodes if node.resource_type == "model"}


def _sql_staged(release: Path, folder: Path) -> StagingResult:
    folder.mkdir()
    models = functools.partial(staging_sql, Settings())
    staging = SqlStaging(models, link_folder(folder), folder / GATE_DATABASE, "1GB")
    return staging(release, contract.release_files(release), release / contract.MANIFEST)()


def _rows(database: Path, table: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute(f"select * from {staging_relation(table)} order by all").fetchall()


@pytest.fixture
def blanks(tmp_path: Path) -> tuple[Path, list[str]]:
    """A small synthetic release whose first four replies are blank or not in four ways."""
    release = write_release(tmp_path / "release", SynthConfig(seed=3, n_tasks=12, n_models=2))
    responses = pq.read_table(release / "responses.parquet")
    contents = responses["content"].to_pylist()
    contents[:4] = ["\x0c\r \t\n", " \n\tnot blank", "", "ends in white space \n"]
    column = responses.schema.get_field_index("content")
    edited = responses.set_column(column, "content", pa.array(contents, pa.string()))
    pq.write_table(edited, release / "responses.parquet")
    return release, responses["response_id"].to_pylist()[:4]


def test_dbt_and_the_compiled_sql_stage_alike_and_blank_means_white_space_only(
    blanks: tuple[Path, list[str]], tmp_path: Path
) -> None:
    release, first = blanks
    dbt_database, statuses = _dbt_staged(release, tmp_path / "dbt-staged")
    by_sql = _sql_staged(release, tmp_path / "sql-staged")
    assert set(statuses.values()) == {"success"} and len(statuses) == len(contract.release_files(release)) + 1
    assert by_sql.unreadable == {} and by_sql.not_read == frozenset()
    for table in ("manifest", *contract.release_files(release)):
        dbt_rows = _rows(dbt_database, table)
        assert dbt_rows and dbt_rows == _rows(by_sql.database, table), table
    with duckdb.connect(str(by_sql.database), read_only=True) as connection:
        blank = dict(
            connection.execute(
                f"select response_id, is_empty from {staging_relation('responses')} where response_id in (?, ?, ?, ?)",
                first,
            ).fetchall()
        )
    assert [blank[r] for r in first] == [True, False, True, False]


def test_a_file_that_cannot_be_read_is_named_alike(blanks: tuple[Path, list[str]], tmp_path: Path) -> None:
    """A reply that is no UTF-8: dbt fails the replies' model and skips the judge labels'
    aggregate; the gate's staging names the user's file (not the links) and leaves the judge
    labels, matched with the replies, unread."""
    release, _ = blanks
    responses = pq.read_table(release / "responses.parquet")
    content = responses["content"].combine_chunks()
    validity, offsets, text = content.buffers()
    broken = bytes(text).replace(b"e", b"\xff", 1)
    bad = pa.Array.from_buffers(pa.string(), len(content), [validity, offsets, pa.py_buffer(broken)])
    column = responses.schema.get_field_index("content")
    pq.write_table(responses.set_column(column, "content", bad), release / "responses.parquet")
    _, statuses = _dbt_staged(release, tmp_path / "dbt-staged")
    assert statuses[staging_model("responses")] == "error" and statuses[JUDGE_LABELS_AGGREGATE] == "skipped"
    built = _sql_staged(release, tmp_path / "sql-staged")
    assert set(built.unreadable) == {"responses"} and built.not_read == frozenset({"judge_labels"})
    message = built.unreadable["responses"]
    assert str(release / "responses.parquet") in message and "UTF8" in message, message
    assert str(built.links) not in message and "release-links" not in message, message


def test_the_compiled_sql_runs_the_models_hooks() -> None:
    """dbt compiles a model's hooks only as it runs them; the compiled staging carries them
    rendered (the replies are stored with zstd, docs/benchmarks.md "Kept, and why")."""
    responses = staging_sql(Settings())[staging_model("responses")]
    assert responses.pre_hooks == ("set force_compression = 'zstd'",)
    assert responses.post_hooks == ("reset force_compression",)
    statements = responses.statements()
    assert statements[0] == responses.pre_hooks[0] and statements[-1] == responses.post_hooks[0]
    assert statements[1].startswith(f"create or replace table {responses.relation} as ")
