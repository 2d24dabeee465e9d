"""The gate reads a column's type from the Parquet schema: strings however encoded (large,
view, dictionary; pandas 3 and polars write large_string) are strings, with or without the
embedded Arrow schema; and two manifest/file rules: sha256 in either case, and no release
file that is a symlink leading out of the release folder."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from distressbench.gate.files import check_manifest
from distressbench.gate.results import Recorder
from distressbench.gate.schemas import check_schemas
from distressbench.publish.checks import verify_release_unchanged
from distressbench.release import contract
from distressbench.release.release import load_release, parquet_columns
from distressbench.submit import submit
from fixtures.gate_fixture import SharedGate
from fixtures.release_factory import MODEL_IDS, build_tables, edit_manifest, make_release, read_table, refresh_manifest
from fixtures.submission_factory import split_release

Writer = Callable[[pa.Table, Path], None]


def _strings_as(arrow_type: Callable[[pa.DataType], pa.DataType]) -> Callable[[pa.Table], pa.Table]:
    def convert(data: pa.Table) -> pa.Table:
        fields = [pa.field(f.name, arrow_type(f.type) if pa.types.is_string(f.type) else f.type) for f in data.schema]
        return data.cast(pa.schema(fields))

    return convert


_LARGE = _strings_as(lambda _: pa.large_string())
_VIEW = _strings_as(lambda _: pa.string_view())


def _dictionary(data: pa.Table) -> pa.Table:
    columns = [c.dictionary_encode() if pa.types.is_string(c.type) else c for c in data.columns]
    return pa.Table.from_arrays(columns, names=data.column_names)


WRITERS: dict[str, Writer] = {
    # each with another Parquet layout: version, compression, page and row-group size, statistics
    "large_string": lambda d, p: pq.write_table(_LARGE(d), p, version="1.0", compression="gzip", row_group_size=3),
    "string_view": lambda d, p: pq.write_table(
        _VIEW(d), p, compression="none", data_page_size=64, write_statistics=False
    ),
    "dictionary": lambda d, p: pq.write_table(_dictionary(d), p, compression="zstd", row_group_size=1),
    "pandas": lambda d, p: d.to_pandas(types_mapper={pa.string(): pd.StringDtype()}.get).to_parquet(p),
    "polars": lambda d, p: pl.from_arrow(d).write_parquet(p),  # type: ignore[union-attr]
}


def _rewrite_all(release: Path, writer: Writer) -> None:
    for table, data in build_tables().items():
        writer(data, release / contract.file_name(table))
    refresh_manifest(release)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_strings_however_encoded_are_strings(tmp_path: Path, writer: str) -> None:
    release = make_release(tmp_path / "release")
    _rewrite_all(release, WRITERS[writer])
    rec = Recorder(echo=False)
    assert set(check_schemas(load_release(release), rec)) == set(contract.SCHEMAS)
    assert all(c.passed for c in rec.checks), [c.line() for c in rec.checks if not c.passed]
    assert pq.read_schema(release / "tasks.parquet").field("task_id").type != pa.string()  # as the writer wrote it


def test_a_release_of_every_string_encoding_passes_the_gate(shared_gate: SharedGate, tmp_path: Path) -> None:
    """Staging and the value checks read such files too: each table in another encoding."""
    release = make_release(tmp_path / "release")
    names = sorted(WRITERS)
    for i, (table, data) in enumerate(build_tables().items()):
        WRITERS[names[i % len(names)]](data, release / contract.file_name(table))
    refresh_manifest(release)
    report = shared_gate(release, echo=False)
    assert report.passed, [c.line() for c in report.failures]


def _with_int64_weight(data: pa.Table) -> pa.Table:
    return data.set_column(data.schema.get_field_index("weight"), "weight", data["weight"].cast(pa.int64()))


@pytest.mark.parametrize("store_schema", [True, False])
def test_the_embedded_arrow_schema_does_not_decide(tmp_path: Path, store_schema: bool) -> None:
    """The same Parquet bytes get the same verdict with and without the Arrow schema: large
    strings pass, an int64 where int32 is due fails."""
    release = make_release(tmp_path / "release")
    criteria = _LARGE(_with_int64_weight(read_table(release, "criteria")))
    pq.write_table(criteria, release / "criteria.parquet", store_schema=store_schema)
    refresh_manifest(release)
    assert parquet_columns(release / "criteria.parquet") == [
        ("criterion_id", "string"),
        ("task_id", "string"),
        ("dimension", "string"),
        ("weight", "int64"),
        ("text", "string"),
    ]
    rec = Recorder(echo=False)
    check_schemas(load_release(release), rec)
    failed = [c for c in rec.checks if not c.passed]
    assert [(c.check, c.table, c.column) for c in failed] == [("schema_types", "criteria", "weight")]
    assert "weight is int64, expected int32" in failed[0].message


def test_bytes_that_are_not_utf8_text_are_not_strings(tmp_path: Path) -> None:
    release = make_release(tmp_path / "release")
    criteria = read_table(release, "criteria")
    i = criteria.schema.get_field_index("text")
    binary = criteria.set_column(i, "text", criteria["text"].cast(pa.large_binary()))
    pq.write_table(binary, release / "criteria.parquet")
    refresh_manifest(release)
    rec = Recorder(echo=False)
    assert "criteria" not in check_schemas(load_release(release), rec)
    assert [c.message for c in rec.checks if not c.passed] == [
        "criteria.parquet has 1 column of the wrong type: text is binary, expected string"
    ]


def test_submit_accepts_strings_however_encoded(shared_gate: SharedGate, tmp_path: Path) -> None:
    original = make_release(tmp_path / "original", release_id="fixture-original")
    split_release(original, MODEL_IDS[1], tmp_path / "base", tmp_path / "submission", base_id="fixture-base")
    for table in ("models", "responses", "judge_labels"):
        path = tmp_path / "submission" / contract.file_name(table)
        pl.read_parquet(path).write_parquet(path)  # polars: large strings
        assert pq.read_schema(path).field("response_id" if table != "models" else "model_id").type == pa.large_string()
    out = tmp_path / "derived"
    submit(tmp_path / "base", tmp_path / "submission", out, echo=False)
    assert shared_gate(out, echo=False).passed
    for table in contract.release_files(original):
        assert sorted(map(repr, read_table(out, table).to_pylist())) == sorted(
            map(repr, read_table(original, table).to_pylist())
        ), table


# --------------------------------------------------------------------------------------
# sha256 in either case; release files inside the release folder


def _manifest_checks(release: Path) -> dict[str, Any]:
    rec = Recorder(echo=False)
    check_manifest(load_release(release), rec)
    return {c.label: c for c in rec.checks}


def test_upper_case_sha256_is_accepted(tmp_path: Path) -> None:
    release = make_release(tmp_path / "release")
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    files = {name: {**entry, "sha256": entry["sha256"].upper()} for name, entry in manifest["files"].items()}
    edit_manifest(release, files=files)
    checks = _manifest_checks(release)
    assert all(c.passed for c in checks.values()), [c.line() for c in checks.values() if not c.passed]
    assert checks["file_sha256 tasks"].passed
    verify_release_unchanged(load_release(release))  # the build's own re-check agrees


def test_a_wrong_upper_case_sha256_still_fails(tmp_path: Path) -> None:
    release = make_release(tmp_path / "release")
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["tasks.parquet"]["sha256"] = "AB" * 32
    edit_manifest(release, files=manifest["files"])
    failed = [c for c in _manifest_checks(release).values() if not c.passed]
    assert [c.label for c in failed] == ["file_sha256 tasks"]


def test_a_symlink_out_of_the_release_folder_is_refused_by_name(shared_gate: SharedGate, tmp_path: Path) -> None:
    release = make_release(tmp_path / "release")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.replace(release / "turns.parquet", elsewhere / "turns.parquet")
    (release / "turns.parquet").symlink_to(elsewhere / "turns.parquet")
    checks = _manifest_checks(release)
    failed = [c for c in checks.values() if not c.passed]
    assert [c.label for c in failed] == ["files_inside"]
    assert failed[0].examples == ['"turns.parquet"']
    assert "symlink to a file outside the release folder" in failed[0].message
    assert "turns" not in check_schemas(load_release(release), Recorder(echo=False))  # never read
    report = shared_gate(release, echo=False)
    assert not report.passed and "files_inside" in {c.check for c in report.failures}


def test_a_symlink_inside_the_release_folder_is_accepted(tmp_path: Path) -> None:
    release = make_release(tmp_path / "release")
    (release / "data").mkdir()
    os.replace(release / "turns.parquet", release / "data" / "turns.parquet")
    (release / "turns.parquet").symlink_to(Path("data") / "turns.parquet")
    checks = _manifest_checks(release)
    assert all(c.passed for c in checks.values()), [c.line() for c in checks.values() if not c.passed]
    assert "turns" in check_schemas(load_release(release), Recorder(echo=False))
