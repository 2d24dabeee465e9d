"""`distressbench pack`: the fixture release's tables, written by each writer a user may have,
packed into a release that passes the gate and holds the same rows; a release the gate
refuses is not written (the refusals of what pack cannot read: tests/python/unit/test_pack_refusals.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

from distressbench import cli
from distressbench.pack import PackRefused, pack
from distressbench.release import contract
from distressbench.release.manifest import read_manifest
from fixtures.gate_fixture import SharedGate
from fixtures.pack_sources import WRITERS, pack_refusals, write_source
from fixtures.releases.hand_built import build_tables
from fixtures.spark_cluster import JAVA_OPTIONS


def _assert_same_rows(release: Path) -> None:
    for table, data in build_tables().items():
        written = pq.read_table(release / contract.file_name(table))
        assert written.schema.equals(contract.SCHEMAS[table]), table
        assert written.to_pylist() == data.to_pylist(), table


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_pack_writes_a_release_that_passes_the_gate(shared_gate: SharedGate, tmp_path: Path, writer: str) -> None:
    source = write_source(tmp_path / "source", WRITERS[writer])
    out = tmp_path / "packed"
    done = pack(source, out, release_id="mine-1")
    assert done.release_id == "mine-1" and done.rows["judge_labels"] == build_tables()["judge_labels"].num_rows
    manifest = read_manifest(out)
    assert manifest["release"] == "mine-1" and manifest["synthetic"] is False and "created_at" in manifest
    assert sorted(manifest["files"]) == sorted(contract.file_name(t) for t in contract.SCHEMAS)
    assert shared_gate(out, echo=False).passed
    _assert_same_rows(out)  # CSV too: the annex's empty model_id fields are its nulls, the empty reply ""
    assert done.notes == ()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.spark
def test_pack_reads_a_spark_output_folder(shared_gate: SharedGate, tmp_path: Path) -> None:
    """Each table as Spark writes it: a folder of part-*.parquet files beside _SUCCESS and .crc files."""
    source = tmp_path / "source"
    pyarrow_copy = write_source(tmp_path / "pyarrow", WRITERS["pyarrow"])
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from pyspark.sql import SparkSession
        builder = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
        spark = builder.config("spark.driver.extraJavaOptions", sys.argv[3]).getOrCreate()
        for path in sorted(Path(sys.argv[1]).glob("*.parquet")):
            spark.read.parquet(str(path)).repartition(2).write.parquet(str(Path(sys.argv[2]) / path.stem))
        spark.stop()
        """
    )
    subprocess.run(
        [sys.executable, "-c", script, str(pyarrow_copy), str(source), JAVA_OPTIONS], check=True, timeout=600
    )
    assert list((source / "turns").glob("part-*.parquet")) and (source / "turns" / "_SUCCESS").exists()
    out = tmp_path / "packed"
    pack(source, out)
    assert shared_gate(out, echo=False).passed
    for table, data in build_tables().items():  # Spark's parts need not keep the row order
        written = pq.read_table(out / contract.file_name(table))
        assert written.schema.equals(contract.SCHEMAS[table]), table
        assert sorted(map(repr, written.to_pylist())) == sorted(map(repr, data.to_pylist())), table


# --------------------------------------------------------------------------------------
# refusals


def test_a_release_the_gate_refuses_is_not_written(tmp_path: Path) -> None:
    """Types fit but a value rule breaks (a weight of 0): the gate's own failure, nothing written."""
    source = write_source(tmp_path / "source", WRITERS["pyarrow"])
    criteria = build_tables()["criteria"]
    weights = [0] + criteria["weight"].to_pylist()[1:]
    i = criteria.schema.get_field_index("weight")
    pq.write_table(criteria.set_column(i, "weight", pa.array(weights, pa.int32())), source / "criteria.parquet")
    failures = pack_refusals(source, tmp_path / "out")
    assert ("criteria", "weight") in {(t, c) for _, t, c, _, _ in failures}


@pytest.mark.integration
def test_an_empty_csv_field_where_the_contract_wants_text_is_named_in_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """criteria.text has no null: its empty fields stay empty strings, pack says so by key, and
    says it too when the gate then refuses the release (an empty text is not non-empty)."""
    source = write_source(tmp_path / "source", WRITERS["csv"])
    criteria = build_tables()["criteria"]
    texts = ["", *criteria["text"].to_pylist()[1:]]
    i = criteria.schema.get_field_index("text")
    pa_csv.write_csv(criteria.set_column(i, "text", pa.array(texts, pa.string())), source / "criteria.csv")
    first = criteria["criterion_id"][0].as_py()
    note = (
        "1 empty field of criteria.text in criteria.csv is read as the empty string (the contract does not let "
        f'text be null): "" (row 0, criterion_id "{first}")'
    )
    with pytest.raises(PackRefused) as refused:
        pack(source, tmp_path / "out")
    assert refused.value.notes == (note,)
    assert [c.label for c in refused.value.failures] == ["non_empty criteria.text"]
    assert cli.main(["pack", str(source), "--out", str(tmp_path / "again")]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines()[0] == f"pack: note: {note}"
    assert captured.err.splitlines()[1].startswith("FAIL non_empty criteria.text: 1 criterion with an empty text")
    assert not (tmp_path / "out").exists() and not (tmp_path / "again").exists()


@pytest.mark.integration
def test_empty_names_and_providers_are_read_as_null(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The contract lets models.display_name and provider be null or blank: an empty CSV field
    is a null, without a note, and the release is packed."""
    source = write_source(tmp_path / "source", WRITERS["csv"])
    models = build_tables()["models"]
    for column in ("display_name", "provider"):
        values = ["", *models[column].to_pylist()[1:-1], ""]
        models = models.set_column(models.schema.get_field_index(column), column, pa.array(values, pa.string()))
    pa_csv.write_csv(models, source / "models.csv")
    done = pack(source, tmp_path / "out")
    assert done.notes == ()
    written = pq.read_table(tmp_path / "out" / "models.parquet")
    for column in ("display_name", "provider"):
        assert written[column].to_pylist() == [None, *models[column].to_pylist()[1:-1], None]


@pytest.mark.integration
def test_the_pack_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_source(tmp_path / "source", WRITERS["csv"])
    assert cli.main(["pack", str(source), "--out", str(tmp_path / "r1"), "--synthetic"]) == 0
    out = capsys.readouterr().out
    assert "wrote release r1 to" in out and 'manifest: "synthetic": true' in out
    assert read_manifest(tmp_path / "r1")["synthetic"] is True
    assert cli.main(["pack", str(source), "--out", str(tmp_path / "r0")]) == 0
    assert 'manifest: "synthetic": false' in capsys.readouterr().out
    assert read_manifest(tmp_path / "r0")["synthetic"] is False
    assert cli.main(["pack", str(source), "--out", str(tmp_path / "r1")]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("FAIL out_dir_new: ")
    assert captured.err.endswith("\npack: refused, 1 check(s) failed; nothing was written\n")
    assert cli.main(["pack", str(tmp_path / "nowhere"), "--out", str(tmp_path / "r2")]) == 2
