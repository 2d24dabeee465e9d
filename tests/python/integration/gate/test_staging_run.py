"""The release's staging models as the gate has dbt run them (distressbench.dbt.staging):
the replies' blank test (is_blank) reads every kind of white space."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from distressbench.dbt.process import DbtProcess
from distressbench.dbt.staging import DbtStaging, link_folder
from distressbench.release import contract
from distressbench.settings import Settings
from distressbench.synth.config import SynthConfig
from distressbench.synth.generate import write_release


def test_replies_are_built_by_dbt_and_blank_means_white_space_only(tmp_path: Path) -> None:
    release = write_release(tmp_path / "release", SynthConfig(seed=3, n_tasks=12, n_models=2))
    responses = pq.read_table(release / "responses.parquet")
    contents = responses["content"].to_pylist()
    contents[:4] = ["\x0c\r \t\n", " \n\tnot blank", "", "ends in white space \n"]
    column = responses.schema.get_field_index("content")
    edited = responses.set_column(column, "content", pa.array(contents, pa.string()))
    pq.write_table(edited, release / "responses.parquet")
    first = responses["response_id"].to_pylist()[:4]
    tables = contract.release_files(release)
    database, links = tmp_path / "gate.duckdb", link_folder(tmp_path)
    dbt = DbtProcess.start(
        project=Settings().project_dir,
        database=database,
        release_links=links,
        log_dir=tmp_path / "dbt",
        target_dir=tmp_path / "target",
        threads=1,
        memory_limit="1GB",
    )
    try:
        built = DbtStaging(dbt, links, database)(release, tables, release / contract.MANIFEST)()
    finally:
        dbt.stop()
    assert built.unreadable == {} and built.not_read == frozenset()
    with duckdb.connect(str(database), read_only=True) as connection:
        blank = dict(
            connection.execute(
                "select response_id, is_empty from staging.stg_release__responses where response_id in (?, ?, ?, ?)",
                first,
            ).fetchall()
        )
    assert [blank[r] for r in first] == [True, False, True, False]
