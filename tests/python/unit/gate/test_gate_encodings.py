"""The gate reads a column's type from the Parquet schema: strings however encoded (large,
view, dictionary; pandas 3 and polars write large_string) are strings, with or without the
embedded Arrow schema; and two manifest/file rules: sha256 in either case, and a symlink
inside the release folder is accepted (the whole gate on such releases, and a symlink out of
the folder: tests/python/integration/gate/test_gate_encodings_staged.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from distressbench.gate.results import Recorder
from distressbench.gate.schemas import check_schemas
from distressbench.publish.checks import verify_release_unchanged
from distressbench.release import contract
from distressbench.release.release import load_release, parquet_columns
from fixtures.releases.hand_built import build_tables, make_release
from fixtures.releases.writer import edit_manifest, read_table, refresh_manifest
from fixtures.string_encodings import LARGE, WRITERS, Writer, manifest_checks


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


def _with_int64_weight(data: pa.Table) -> pa.Table:
    return data.set_column(data.schema.get_field_index("weight"), "weight", data["weight"].cast(pa.int64()))


@pytest.mark.parametrize("store_schema", [True, False])
def test_the_embedded_arrow_schema_does_not_decide(tmp_path: Path, store_schema: bool) -> None:
    """The same Parquet bytes get the same verdict with and without the Arrow schema: large
    strings pass, an int64 where int32 is due fails."""
    release = make_release(tmp_path / "release")
    criteria = LARGE(_with_int64_weight(read_table(release, "criteria")))
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


# --------------------------------------------------------------------------------------
# sha256 in either case; release files inside the release folder


def test_upper_case_sha256_is_accepted(tmp_path: Path) -> None:
    release = make_release(tmp_path / "release")
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    files = {name: {**entry, "sha256": entry["sha256"].upper()} for name, entry in manifest["files"].items()}
    edit_manifest(release, files=files)
    checks = manifest_checks(release)
    assert all(c.passed for c in checks.values()), [c.line() for c in checks.values() if not c.passed]
    assert checks["file_sha256 tasks"].passed
    verify_release_unchanged(load_release(release))  # the build's own re-check agrees


def test_a_wrong_upper_case_sha256_still_fails(tmp_path: Path) -> None:
    release = make_release(tmp_path / "release")
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["tasks.parquet"]["sha256"] = "AB" * 32
    edit_manifest(release, files=manifest["files"])
    failed = [c for c in manifest_checks(release).values() if not c.passed]
    assert [c.label for c in failed] == ["file_sha256 tasks"]


def test_a_symlink_inside_the_release_folder_is_accepted(tmp_path: Path) -> None:
    release = make_release(tmp_path / "release")
    (release / "data").mkdir()
    os.replace(release / "turns.parquet", release / "data" / "turns.parquet")
    (release / "turns.parquet").symlink_to(Path("data") / "turns.parquet")
    checks = manifest_checks(release)
    assert all(c.passed for c in checks.values()), [c.line() for c in checks.values() if not c.passed]
    assert "turns" in check_schemas(load_release(release), Recorder(echo=False))
