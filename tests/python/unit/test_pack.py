"""`distressbench pack`: the fixture release's tables, written by each writer a user may have,
packed into a release that passes the gate and holds the same rows; each refusal by name."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

from distressbench import cli
from distressbench.pack import PackRefused, pack
from distressbench.release import contract
from distressbench.release.manifest import read_manifest
from fixtures.gate_fixture import SharedGate
from fixtures.release_factory import build_tables

Writer = Callable[[str, pa.Table, Path], None]


def _duckdb(table: str, data: pa.Table, folder: Path) -> None:
    with duckdb.connect() as con:
        con.register("source", data)
        con.execute(f"copy source to '{folder / (table + '.parquet')}' (format parquet)")


def _jsonl(table: str, data: pa.Table, folder: Path) -> None:
    with (folder / f"{table}.jsonl").open("w", encoding="utf-8") as handle:
        for row in data.to_pylist():
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


WRITERS: dict[str, Writer] = {
    "pyarrow": lambda t, d, f: pq.write_table(d, f / f"{t}.parquet"),
    # pandas' own types: int64 integers, pandas 3 strings (large_string)
    "pandas": lambda t, d, f: pd.DataFrame(d.to_pydict()).to_parquet(f / f"{t}.parquet"),
    "polars": lambda t, d, f: pl.DataFrame(d.to_pydict()).write_parquet(f / f"{t}.parquet"),
    "duckdb": _duckdb,
    "csv": lambda t, d, f: pa_csv.write_csv(d, f / f"{t}.csv"),
    "jsonl": _jsonl,
}


def _write_source(folder: Path, writer: Writer) -> Path:
    folder.mkdir()
    for table, data in build_tables().items():
        writer(table, data, folder)
    return folder


def _assert_same_rows(release: Path) -> None:
    for table, data in build_tables().items():
        written = pq.read_table(release / contract.file_name(table))
        assert written.schema.equals(contract.SCHEMAS[table]), table
        assert written.to_pylist() == data.to_pylist(), table


@pytest.mark.integration
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_pack_writes_a_release_that_passes_the_gate(shared_gate: SharedGate, tmp_path: Path, writer: str) -> None:
    source = _write_source(tmp_path / "source", WRITERS[writer])
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


@pytest.mark.integration
@pytest.mark.spark
def test_pack_reads_a_spark_output_folder(shared_gate: SharedGate, tmp_path: Path) -> None:
    """Each table as Spark writes it: a folder of part-*.parquet files beside _SUCCESS and .crc files."""
    source = tmp_path / "source"
    pyarrow_copy = _write_source(tmp_path / "pyarrow", WRITERS["pyarrow"])
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
        for path in sorted(Path(sys.argv[1]).glob("*.parquet")):
            spark.read.parquet(str(path)).repartition(2).write.parquet(str(Path(sys.argv[2]) / path.stem))
        spark.stop()
        """
    )
    subprocess.run([sys.executable, "-c", script, str(pyarrow_copy), str(source)], check=True, timeout=600)
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


def _refused(source: Path, out: Path, **options: str) -> list[tuple[str, str | None, str | None, int, str]]:
    with pytest.raises(PackRefused) as refused:
        pack(source, out, **options)
    assert not out.exists() and not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]
    return [(c.check, c.table, c.column, c.n_failed, c.message) for c in refused.value.failures]


def test_a_value_that_does_not_fit_its_type_is_refused(tmp_path: Path) -> None:
    """weight 2.5 and 3e9 do not fit int32 (pandas floats and int64): never cast, named by key."""
    source = _write_source(tmp_path / "source", WRITERS["pyarrow"])
    criteria = build_tables()["criteria"].to_pandas()
    criteria["weight"] = criteria["weight"].astype("float64")
    criteria.loc[1, "weight"] = 2.5
    criteria.loc[4, "weight"] = 3e9
    criteria.to_parquet(source / "criteria.parquet")
    ((check, table, column, count, message),) = _refused(source, tmp_path / "out")
    assert (check, table, column, count) == ("value_fits_type", "criteria", "weight", 2)
    first, second = criteria["criterion_id"][1], criteria["criterion_id"][4]
    assert message == (
        f"2 values of criteria.weight in criteria.parquet do not fit int32 (found double): "
        f'"2.5" (row 1, criterion_id "{first}"), "3000000000.0" (row 4, criterion_id "{second}")'
    )


def test_csv_text_that_is_not_a_number_or_a_bool_is_refused(tmp_path: Path) -> None:
    source = _write_source(tmp_path / "source", WRITERS["csv"])
    turns = (source / "turns.csv").read_text(encoding="utf-8").splitlines()
    turns[1] = turns[1].replace(",0,", ",zero,", 1)
    (source / "turns.csv").write_text("\n".join(turns) + "\n", encoding="utf-8")
    labels = (source / "judge_labels.csv").read_text(encoding="utf-8").replace("true", "yes", 1)
    (source / "judge_labels.csv").write_text(labels, encoding="utf-8")
    failures = _refused(source, tmp_path / "out")
    assert [(c, t, col, n) for c, t, col, n, _ in failures] == [
        ("value_fits_type", "judge_labels", "met", 1),
        ("value_fits_type", "turns", "turn_index", 1),
    ]
    assert '"yes" (row ' in failures[0][4] and '"zero" (row 0, task_id ' in failures[1][4]


def test_a_column_of_a_type_that_cannot_hold_the_contracts_is_refused(tmp_path: Path) -> None:
    source = _write_source(tmp_path / "source", WRITERS["pyarrow"])
    models = build_tables()["models"]
    pq.write_table(models.set_column(0, "model_id", pa.array(range(models.num_rows))), source / "models.parquet")
    ((check, table, column, count, message),) = _refused(source, tmp_path / "out")
    assert (check, table, column, count) == ("schema_types", "models", "model_id", 1)
    assert message == "models.parquet has 1 column of the wrong type: model_id is int64, expected string"


def test_missing_and_extra_columns_are_refused(tmp_path: Path) -> None:
    source = _write_source(tmp_path / "source", WRITERS["jsonl"])
    rows = [json.loads(line) for line in (source / "tasks.jsonl").read_text(encoding="utf-8").splitlines()]
    text = "".join(json.dumps({**{k: v for k, v in r.items() if k != "subcategory"}, "note": 1}) + "\n" for r in rows)
    (source / "tasks.jsonl").write_text(text, encoding="utf-8")
    ((check, table, column, count, message),) = _refused(source, tmp_path / "out")
    assert (check, table, column, count) == ("schema_columns", "tasks", "subcategory, note", 2)
    assert message.startswith(
        "tasks.jsonl lacks column subcategory and has extra column note; the contract's columns of tasks are task_id, "
    )


def test_missing_doubled_and_unknown_sources_are_refused(tmp_path: Path) -> None:
    source = _write_source(tmp_path / "source", WRITERS["pyarrow"])
    (source / "turns.parquet").unlink()
    shutil.copyfile(source / "models.parquet", source / "scores.parquet")
    pa_csv.write_csv(build_tables()["tasks"], source / "tasks.csv")
    ((check, table, column, count, message),) = _refused(source, tmp_path / "out")
    assert (check, count) == ("pack_sources", 3)
    for named in (
        "turns (required, no source)",
        'tasks (given 2 times: "tasks.csv", "tasks.parquet")',
        '"scores.parquet" (not a table of the contract)',
    ):
        assert named in message


def test_an_unreadable_source_is_refused_by_name(tmp_path: Path) -> None:
    source = _write_source(tmp_path / "source", WRITERS["jsonl"])
    with (source / "responses.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"response_id": 7, "task_id": "x", "model_id": "y", "content": "z"}\n')
    ((check, table, _, _, message),) = _refused(source, tmp_path / "out")
    assert (check, table) == ("source_readable", "responses")
    assert message.startswith("responses.jsonl cannot be read as jsonl: ")


def test_an_existing_out_folder_and_a_bad_release_id_are_refused(tmp_path: Path) -> None:
    source = _write_source(tmp_path / "source", WRITERS["pyarrow"])
    (tmp_path / "taken").mkdir()
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    for taken in ("taken", "broken"):
        with pytest.raises(PackRefused) as refused:
            pack(source, tmp_path / taken)
        assert [c.check for c in refused.value.failures] == ["out_dir_new"]
    assert [c[0] for c in _refused(source, tmp_path / "out", release_id="../up")] == ["release_id"]


@pytest.mark.integration
def test_a_release_the_gate_refuses_is_not_written(tmp_path: Path) -> None:
    """Types fit but a value rule breaks (a weight of 0): the gate's own failure, nothing written."""
    source = _write_source(tmp_path / "source", WRITERS["pyarrow"])
    criteria = build_tables()["criteria"]
    weights = [0] + criteria["weight"].to_pylist()[1:]
    i = criteria.schema.get_field_index("weight")
    pq.write_table(criteria.set_column(i, "weight", pa.array(weights, pa.int32())), source / "criteria.parquet")
    failures = _refused(source, tmp_path / "out")
    assert ("criteria", "weight") in {(t, c) for _, t, c, _, _ in failures}


@pytest.mark.integration
def test_an_empty_csv_field_where_the_contract_wants_text_is_named_in_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """criteria.text has no null: its empty fields stay empty strings, pack says so by key, and
    says it too when the gate then refuses the release (an empty text is not non-empty)."""
    source = _write_source(tmp_path / "source", WRITERS["csv"])
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
    source = _write_source(tmp_path / "source", WRITERS["csv"])
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
    source = _write_source(tmp_path / "source", WRITERS["csv"])
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
