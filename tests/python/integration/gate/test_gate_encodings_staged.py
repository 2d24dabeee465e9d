"""Releases whose strings are encoded every way a writer may pass the whole gate (staging and
the value checks read such files too) and submit; a symlink out of the release folder is
refused by name."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from distressbench.gate.results import Recorder
from distressbench.gate.schemas import check_schemas
from distressbench.release import contract
from distressbench.release.release import load_release
from distressbench.submit import submit
from fixtures.gate_fixture import SharedGate
from fixtures.releases.hand_built import MODEL_IDS, build_tables, make_release
from fixtures.releases.submission import split_release
from fixtures.releases.writer import read_table, refresh_manifest
from fixtures.string_encodings import WRITERS, manifest_checks


def test_a_release_of_every_string_encoding_passes_the_gate(shared_gate: SharedGate, tmp_path: Path) -> None:
    """Staging and the value checks read such files too: each table in another encoding."""
    release = make_release(tmp_path / "release")
    names = sorted(WRITERS)
    for i, (table, data) in enumerate(build_tables().items()):
        WRITERS[names[i % len(names)]](data, release / contract.file_name(table))
    refresh_manifest(release)
    report = shared_gate(release, echo=False)
    assert report.passed, [c.line() for c in report.failures]


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


def test_a_symlink_out_of_the_release_folder_is_refused_by_name(shared_gate: SharedGate, tmp_path: Path) -> None:
    release = make_release(tmp_path / "release")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.replace(release / "turns.parquet", elsewhere / "turns.parquet")
    (release / "turns.parquet").symlink_to(elsewhere / "turns.parquet")
    checks = manifest_checks(release)
    failed = [c for c in checks.values() if not c.passed]
    assert [c.label for c in failed] == ["files_inside"]
    assert failed[0].examples == ['"turns.parquet"']
    assert "symlink to a file outside the release folder" in failed[0].message
    assert "turns" not in check_schemas(load_release(release), Recorder(echo=False))  # never read
    report = shared_gate(release, echo=False)
    assert not report.passed and "files_inside" in {c.check for c in report.failures}
