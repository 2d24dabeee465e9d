"""Tests for distressbench.release.release: a release is read once (manifest parsed and
hashed, every file hashed and its footer read), and the stages after take what was read."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from distressbench.publish.checks import verify_release_unchanged
from distressbench.publish.stages import StageFailed
from distressbench.release import contract
from distressbench.release.release import load_release
from fixtures.releases.writer import edit_manifest, read_table


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_release_is_loaded_with_its_manifest_hashes_rows_and_schemas(good_release: Path) -> None:
    release = load_release(good_release)
    assert release.manifest is not None and release.manifest_error is None
    assert release.release_id == "fixture-1"
    assert release.manifest_sha256 == _sha256(good_release / contract.MANIFEST)
    assert set(release.files) == set(contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES)
    for table, file in release.files.items():
        assert file.path == good_release / contract.file_name(table)
        assert file.sha256 == _sha256(file.path), table
        assert file.rows == read_table(good_release, table).num_rows, table
        assert file.columns == tuple((f.name, str(f.type)) for f in contract.SCHEMAS[table]), table
        assert release.listed_rows(table) == file.rows, table


def test_what_cannot_be_read_is_kept_with_the_reason(good_release: Path) -> None:
    (good_release / contract.MANIFEST).write_text("{not json", encoding="utf-8")
    (good_release / "models.parquet").write_bytes(b"PAR1 truncated")
    release = load_release(good_release)
    assert release.manifest is None and "not valid JSON" in str(release.manifest_error)
    assert release.manifest_sha256 == _sha256(good_release / contract.MANIFEST)
    models = release.files["models"]
    assert models.sha256 == _sha256(models.path)
    assert models.rows is None and models.columns is None and models.footer_error
    assert release.listed_rows("models") is None
    with pytest.raises(ValueError, match="manifest.json could not be read"):
        _ = release.release_id


def test_an_absent_manifest_is_no_error_of_loading(tmp_path: Path) -> None:
    release = load_release(tmp_path)
    assert release.manifest is None and release.manifest_error is None and release.manifest_sha256 is None
    assert dict(release.files) == {}


def test_verify_reads_the_files_again_and_refuses_a_file_changed_after_loading(good_release: Path) -> None:
    release = load_release(good_release)
    verify_release_unchanged(release)
    tasks = read_table(good_release, "tasks")
    pq.write_table(tasks.slice(0, tasks.num_rows - 1), good_release / "tasks.parquet")
    with pytest.raises(StageFailed, match=r"1 release file\(s\) changed after the gate read them: tasks.parquet"):
        verify_release_unchanged(release)


def test_verify_refuses_a_manifest_changed_after_loading(good_release: Path) -> None:
    release = load_release(good_release)
    edit_manifest(good_release, created_at="2026-12-01T00:00:00Z")
    with pytest.raises(StageFailed, match="manifest.json changed while the release was being built"):
        verify_release_unchanged(release)


def test_the_loaded_columns_are_the_file_footer_s_logical_types(good_release: Path) -> None:
    # large strings are strings; a column the footer has as int64 is int64, whatever the contract says
    models = read_table(good_release, "models")
    wide = models.cast(pa.schema([pa.field(f.name, pa.large_string()) for f in contract.SCHEMAS["models"]]))
    pq.write_table(wide.append_column("n", pa.array(range(len(models)), pa.int64())), good_release / "models.parquet")
    loaded = load_release(good_release).files["models"].columns
    assert loaded == (*((f.name, "string") for f in contract.SCHEMAS["models"]), ("n", "int64"))
