"""The gate's file stages alone (files_run: the manifest and files, then the Arrow schemas; no dbt,
no value read): every kind of manifest, file and schema breach fails with a line naming the
check, the table and column, and the offending key."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from distressbench import cli
from distressbench.gate.gx import GxRunner, gx
from distressbench.release import contract
from fixtures.gate_runs import FilesRun, assert_fails, fail_lines, run
from fixtures.releases.writer import edit_manifest, read_table, rewrite_table

# --------------------------------------------------------------------------------------
# the valid release, usage, report


def test_missing_folder_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["gate", str(tmp_path / "nowhere")]) == 2
    assert "no such release folder" in capsys.readouterr().err


def test_missing_argument_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["gate"])
    assert exit_info.value.code == 2


# --------------------------------------------------------------------------------------
# manifest and files


def test_extra_file(good_release: Path, files_run: FilesRun) -> None:
    (good_release / "notes.parquet").write_bytes((good_release / "models.parquet").read_bytes())
    assert_fails(good_release, files_run, "unlisted_files", '"notes.parquet"', "not listed in manifest.json")


def test_unlisted_annex(good_release: Path, files_run: FilesRun) -> None:
    manifest = json.loads((good_release / "manifest.json").read_text(encoding="utf-8"))
    del manifest["files"]["redteam_transcripts.parquet"]
    edit_manifest(good_release, files=manifest["files"])
    assert_fails(good_release, files_run, "unlisted_files", '"redteam_transcripts.parquet"')


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", ""])
def test_malformed_manifest(good_release: Path, files_run: FilesRun, text: str) -> None:
    (good_release / "manifest.json").write_text(text, encoding="utf-8")
    assert_fails(good_release, files_run, "manifest_json", "manifest.json cannot be read")


def test_missing_manifest(good_release: Path, files_run: FilesRun) -> None:
    (good_release / "manifest.json").unlink()
    assert_fails(good_release, files_run, "manifest_json", "manifest.json is missing")


@pytest.mark.parametrize(("version", "shown"), [(2, "2"), ("1", '"1"'), (None, "null")])
def test_unknown_schema_version(good_release: Path, files_run: FilesRun, version: object, shown: str) -> None:
    edit_manifest(good_release, schema_version=version)
    assert_fails(
        good_release, files_run, "manifest_schema_version manifest.schema_version", f"schema_version is {shown}"
    )


def test_wrong_benchmark(good_release: Path, files_run: FilesRun) -> None:
    edit_manifest(good_release, benchmark="OtherBench")
    assert_fails(good_release, files_run, "manifest_benchmark manifest.benchmark", '"OtherBench"')


def test_synthetic_must_be_boolean(good_release: Path, files_run: FilesRun) -> None:
    edit_manifest(good_release, synthetic="yes")
    assert_fails(good_release, files_run, "manifest_synthetic manifest.synthetic", '"yes"')


@pytest.mark.parametrize("release_id", ["../escape", "a/b", "a\\b", "..", "", "rel ease", 7])
def test_unsafe_release_id(good_release: Path, files_run: FilesRun, release_id: object) -> None:
    edit_manifest(good_release, release=release_id)
    assert_fails(
        good_release,
        files_run,
        "manifest_release_id manifest.release",
        f"release id is {json.dumps(release_id)}",
        "[A-Za-z0-9._-]+",
    )


def test_files_listing_must_be_the_contracts(good_release: Path, files_run: FilesRun) -> None:
    manifest = json.loads((good_release / "manifest.json").read_text(encoding="utf-8"))
    files = manifest["files"]
    del files["turns.parquet"]
    files["bonus.parquet"] = files["models.parquet"]
    files["tasks.parquet"] = {"sha256": "abc", "rows": -1}
    edit_manifest(good_release, files=files)
    line = assert_fails(
        good_release,
        files_run,
        "manifest_files manifest.files",
        '"turns.parquet" (required, not listed)',
        '"bonus.parquet" (not a file of the contract)',
        '"tasks.parquet" (sha256 is not 64',
        '"tasks.parquet" (rows is not a non-negative',
        also={"unlisted_files"},
    )
    assert line.startswith("FAIL manifest_files manifest.files: 4 problems")


def test_sha256_mismatch(good_release: Path, files_run: FilesRun) -> None:
    manifest = json.loads((good_release / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["tasks.parquet"]["sha256"] = "0" * 64
    edit_manifest(good_release, files=manifest["files"])
    assert_fails(
        good_release, files_run, "file_sha256 tasks", "tasks.parquet has sha256", "manifest.json says " + "0" * 64
    )


def test_row_count_mismatch(good_release: Path, files_run: FilesRun) -> None:
    manifest = json.loads((good_release / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["judge_labels.parquet"]["rows"] += 3
    edit_manifest(good_release, files=manifest["files"])
    rows = read_table(good_release, "judge_labels").num_rows
    assert_fails(
        good_release, files_run, "file_rows judge_labels", f"holds {rows} rows but manifest.json says {rows + 3}"
    )


# --------------------------------------------------------------------------------------
# columns and types


def test_missing_column(good_release: Path, files_run: FilesRun) -> None:
    rewrite_table(good_release, "criteria", read_table(good_release, "criteria").drop_columns(["text"]))
    assert_fails(good_release, files_run, "schema_columns criteria.text", "criteria.parquet lacks column text")


def test_extra_column(good_release: Path, files_run: FilesRun) -> None:
    tasks = read_table(good_release, "tasks")
    rewrite_table(good_release, "tasks", tasks.append_column("note", pa.array(["x"] * tasks.num_rows)))
    assert_fails(good_release, files_run, "schema_columns tasks.note", "tasks.parquet has extra column note")


@pytest.mark.parametrize(
    ("arrow_type", "shown"), [(pa.float64(), "double"), (pa.string(), "string"), (pa.int64(), "int64")]
)
def test_weight_of_another_type(good_release: Path, files_run: FilesRun, arrow_type: pa.DataType, shown: str) -> None:
    criteria = read_table(good_release, "criteria")
    i = criteria.schema.get_field_index("weight")
    rewrite_table(good_release, "criteria", criteria.set_column(i, "weight", criteria["weight"].cast(arrow_type)))
    assert_fails(good_release, files_run, "schema_types criteria.weight", f"weight is {shown}, expected int32")


# --------------------------------------------------------------------------------------
# values


def test_a_range_check_on_narrow_numbers_names_the_rows_out_of_range() -> None:
    """Columns read as int32 or float32 (as the release's are) get the same outcome from GX's
    range check as any other: the rows out of range, by index."""
    frame = pd.DataFrame(
        {
            "weight": np.array([3, 0, 21, 5], dtype=np.int32),
            "share": np.array([0.5, 1.5, 0.25, 1.0], dtype=np.float32),
        }
    )
    (weight, share) = GxRunner().validate(
        frame,
        [
            gx.expectations.ExpectColumnValuesToBeBetween(column="weight", min_value=1, max_value=20),
            gx.expectations.ExpectColumnValuesToBeBetween(column="share", min_value=0, max_value=1),
        ],
    )
    assert (weight.success, weight.unexpected_count, weight.unexpected_index) == (False, 2, [1, 2])
    assert (share.success, share.unexpected_count, share.unexpected_index) == (False, 1, [1])


# --------------------------------------------------------------------------------------
# hardening: inputs that crashed, hung or slipped through


def _raw_manifest(release: Path) -> str:
    return (release / "manifest.json").read_text(encoding="utf-8")


def test_a_folder_named_like_a_release_file_is_refused(good_release: Path, files_run: FilesRun) -> None:
    (good_release / "turns.parquet").unlink()
    (good_release / "turns.parquet").mkdir()
    code, out = run(good_release, files_run)
    assert code == 1
    assert '"turns.parquet" (a folder)' in fail_lines(out)["regular_files"]


def test_a_deeply_nested_manifest_is_refused_by_name(good_release: Path, files_run: FilesRun) -> None:
    text = _raw_manifest(good_release)
    (good_release / "manifest.json").write_text(text[:-2] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    line = assert_fails(good_release, files_run, "manifest_json", "nested 100001 deep", "at most 8")
    assert "Traceback" not in line


def test_a_manifest_with_a_repeated_key_is_refused(good_release: Path, files_run: FilesRun) -> None:
    text = _raw_manifest(good_release)
    (good_release / "manifest.json").write_text(text.replace('"release":', '"release": "other", "release":', 1))
    assert_fails(good_release, files_run, "manifest_json", 'key "release" appears more than once')


def test_a_huge_manifest_is_refused_before_parsing(good_release: Path, files_run: FilesRun) -> None:
    edit_manifest(good_release, padding="x" * (contract.MANIFEST_MAX_BYTES + 1))
    assert_fails(good_release, files_run, "manifest_json", f"larger than {contract.MANIFEST_MAX_BYTES} bytes")


def test_a_manifest_with_nan_is_refused(good_release: Path, files_run: FilesRun) -> None:
    text = _raw_manifest(good_release)
    (good_release / "manifest.json").write_text(text.replace('"schema_version": 1', '"schema_version": NaN', 1))
    assert_fails(good_release, files_run, "manifest_json", "NaN is not a JSON number")


@pytest.mark.parametrize(
    "created_at", ["MISSING", None, 20261101, "", "yesterday", "2026-11-01", "2026-13-01T00:00:00Z"]
)
def test_created_at_must_be_an_iso_8601_timestamp(good_release: Path, files_run: FilesRun, created_at: object) -> None:
    path = good_release / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    if created_at == "MISSING":
        del manifest["created_at"]
    else:
        manifest["created_at"] = created_at
    path.write_text(json.dumps(manifest), encoding="utf-8")
    assert_fails(
        good_release,
        files_run,
        "manifest_created_at manifest.created_at",
        "ISO 8601",
        "missing" if created_at == "MISSING" else json.dumps(created_at),
    )


@pytest.mark.parametrize(
    ("derived_from", "named"),
    [
        ("base-1", '"base-1", not an object'),
        ({"release": "../x", "manifest_sha256": "0" * 64}, 'release is "../x"'),
        ({"release": "base-1", "manifest_sha256": "ABC"}, 'manifest_sha256 is "ABC"'),
        ({"release": "base-1"}, "manifest_sha256 is null"),
        ({"release": "base-1", "manifest_sha256": "0" * 64, "extra": 1}, 'unknown key "extra"'),
    ],
)
def test_derived_from_must_have_its_shape(
    good_release: Path, files_run: FilesRun, derived_from: object, named: str
) -> None:
    edit_manifest(good_release, derived_from=derived_from)
    assert_fails(good_release, files_run, "manifest_derived_from manifest.derived_from", named)
