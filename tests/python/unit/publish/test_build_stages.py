"""Stages of the build on hand-made inputs: the publish check (checks.already_published), the
publication record (layout.publication_record), and the relation each release table is
staged into (dbt.relations)."""

from __future__ import annotations

from pathlib import Path

import pytest

from distressbench.dbt import relations
from distressbench.publish.checks import already_published
from distressbench.publish.layout import WarehouseLayout, publication_record
from distressbench.publish.stages import StageFailed
from distressbench.release.release import Release


def _release(folder: Path, release_id: str, digest: str) -> Release:
    return Release(folder, {"release": release_id, "files": {}}, None, digest, {}, {}, frozenset(), ())


def _published(tmp_path: Path, build_file: str) -> WarehouseLayout:
    """A warehouse whose published path points at `build_file` in its builds folder."""
    layout = WarehouseLayout(tmp_path / "w.duckdb")
    layout.builds_dir.mkdir()
    (layout.builds_dir / build_file).write_bytes(b"")
    layout.published.symlink_to(layout.builds_dir / build_file)
    return layout


def test_a_release_published_with_the_same_content_is_not_built_again(tmp_path: Path) -> None:
    layout = _published(tmp_path, "r1-1.duckdb")
    history = [
        {"release_id": "r1", "manifest_sha256": "aa", "build_file": "r1-0.duckdb"},
        {"release_id": "r1", "manifest_sha256": "aa", "build_file": "r1-1.duckdb"},
    ]
    release = _release(tmp_path, "r1", "aa")
    assert already_published(layout, history, release, force=False) == layout.builds_dir / "r1-1.duckdb"
    assert already_published(layout, history, release, force=True) is None
    assert already_published(layout, history, _release(tmp_path, "r2", "aa"), force=False) is None


def test_a_release_published_but_no_longer_current_is_built_again(tmp_path: Path) -> None:
    layout = _published(tmp_path, "r2-0.duckdb")
    history = [
        {"release_id": "r1", "manifest_sha256": "aa", "build_file": "r1-0.duckdb"},
        {"release_id": "r2", "manifest_sha256": "bb", "build_file": "r2-0.duckdb"},
    ]
    assert already_published(layout, history, _release(tmp_path, "r1", "aa"), force=False) is None


def test_a_release_id_published_with_other_content_needs_force(tmp_path: Path) -> None:
    layout = _published(tmp_path, "r1-0.duckdb")
    history = [{"release_id": "r1", "manifest_sha256": "aa", "build_file": "r1-0.duckdb"}]
    with pytest.raises(StageFailed, match=r"stage 'publish check'.*'r1'.*sha256 aa, now bb.*--force"):
        already_published(layout, history, _release(tmp_path, "r1", "bb"), force=False)
    assert already_published(layout, history, _release(tmp_path, "r1", "bb"), force=True) is None


def test_the_publication_record_names_the_release_its_file_and_the_gate_report(tmp_path: Path) -> None:
    record = publication_record(_release(tmp_path, "r1", "aa"), tmp_path / "r1-7.duckdb", {"passed": True})
    published_at = record.pop("published_at")
    assert record == {
        "release_id": "r1",
        "manifest_sha256": "aa",
        "build_file": "r1-7.duckdb",
        "release_dir": str(tmp_path),
        "gate_report": {"passed": True},
    }
    assert published_at[4] == "-" and published_at.endswith("+00:00")


def test_each_release_table_is_staged_into_its_own_relation() -> None:
    assert relations.staging_model("models") == "stg_release__models"
    assert relations.staging_relation("models") == "staging.stg_release__models"
    assert relations.staging_model("judge_labels") == "int_judge_labels_aggregated"
    assert relations.staging_relation("judge_labels") == "intermediate.int_judge_labels_aggregated"
