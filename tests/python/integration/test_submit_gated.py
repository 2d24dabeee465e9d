"""A valid submission gives the original release back: the derived release passes the gate
(on the session's dbt process) and holds the original's rows."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from distressbench.release import contract
from distressbench.release.manifest import manifest_sha256, read_manifest
from distressbench.submit import submit
from fixtures.gate_fixture import SharedGate
from fixtures.releases.hand_built import MODEL_IDS
from fixtures.releases.submission import SUBMITTED, leftovers
from fixtures.releases.writer import read_table


def _rows(release: Path, table: str) -> list[tuple[object, ...]]:
    return sorted(read_table(release, table).to_pylist(), key=repr)  # type: ignore[arg-type]


def test_a_valid_submission_gives_the_original_release_back(
    shared_gate: SharedGate, split: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    original, base, submission = split
    out = tmp_path / "derived"
    done = submit(base, submission, out, echo=False)
    assert done.out_dir == out and out.is_dir()
    assert shared_gate(out, echo=False).passed
    for table in contract.release_files(original):
        assert _rows(out, table) == _rows(original, table), table
        assert pq.read_schema(out / contract.file_name(table)).equals(contract.SCHEMAS[table]), table
    manifest = read_manifest(out)
    assert manifest["release"] == done.release_id
    assert manifest["derived_from"] == {"release": "fixture-base", "manifest_sha256": manifest_sha256(base)}
    assert manifest["synthetic"] is True
    for name, entry in manifest["files"].items():
        assert entry["rows"] == pq.ParquetFile(out / name).metadata.num_rows
    assert done.rows["models"] == len(MODEL_IDS) + 1
    assert re.fullmatch(r"fixture-base-plus-[0-9a-f]{8}", done.release_id)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("name", [None, "", " \t "])
def test_a_model_without_a_display_name_or_provider_is_accepted(
    shared_gate: SharedGate, split: tuple[Path, Path, Path], tmp_path: Path, name: str | None
) -> None:
    """The gate and submit apply the contract's one rule: display_name and provider may be null
    or blank (tables then show the model_id)."""
    _, base, submission = split
    models = read_table(submission, "models")
    for column in ("display_name", "provider"):
        index = models.schema.get_field_index(column)
        models = models.set_column(index, column, pa.array([name] * models.num_rows, pa.string()))
    pq.write_table(models, submission / contract.file_name("models"))
    done = submit(base, submission, tmp_path / "derived", echo=False)
    written = {row["model_id"]: row for row in read_table(done.out_dir, "models").to_pylist()}
    assert (written[SUBMITTED]["display_name"], written[SUBMITTED]["provider"]) == (name, name)
    assert shared_gate(done.out_dir, echo=False).passed
