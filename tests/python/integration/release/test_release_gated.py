"""The gate on a release as loaded (distressbench.release.release): it checks what was read,
without reading the files again, and reports a loaded hash that differs from the manifest."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from distressbench.release import manifest as manifest_module
from distressbench.release.release import load_release
from fixtures.gate_fixture import SharedGate
from fixtures.releases.writer import edit_manifest, read_table


def test_the_gate_checks_the_release_as_loaded_without_reading_its_files_again(
    shared_gate: SharedGate, good_release: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once loaded, no manifest parse, hash or footer read happens again in the file and
    schema stages (their inputs come from the Release)."""
    release = load_release(good_release)

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("read again")

    monkeypatch.setattr(manifest_module, "_open_regular", refuse)
    monkeypatch.setattr(pq, "ParquetFile", refuse)
    monkeypatch.setattr(pq, "read_schema", refuse)
    report = shared_gate(release, echo=False)
    assert report.passed, [c.line() for c in report.failures]
    assert report.release_dir == str(good_release)


def test_the_gate_reports_a_loaded_hash_that_differs_from_the_manifest(
    shared_gate: SharedGate, good_release: Path
) -> None:
    edit_manifest(
        good_release,
        files={
            **load_release(good_release).manifest["files"],  # type: ignore[index]
            "tasks.parquet": {"sha256": "0" * 64, "rows": read_table(good_release, "tasks").num_rows},
        },
    )
    report = shared_gate(load_release(good_release), echo=False)
    failed = {c.label for c in report.failures}
    assert failed == {"file_sha256 tasks"}, failed
