"""Gate stage 1: the manifest and the file set, as `release.release.load_release` found them
(stage 2, the schemas, is gate.schemas)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from distressbench import messages
from distressbench.gate.results import Recorder, StageRecorder, listing, quote
from distressbench.release import contract, folders
from distressbench.release.manifest import file_kind
from distressbench.release.release import Release

_SHA256 = re.compile(r"[0-9a-fA-F]{64}")  # either case, as `sha256sum --check` reads it
_CONTRACT_FILES = {contract.file_name(t): t for t in contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES}
_MANIFEST_CHECKS = (
    "manifest_benchmark",
    "manifest_schema_version",
    "manifest_release_id",
    "manifest_created_at",
    "manifest_synthetic",
    "manifest_derived_from",
    "manifest_primary_judge",
    "manifest_files",
)
# An ISO 8601 timestamp: a calendar date, then a time (a time zone is optional).
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
_RELEASE_ID_RULE = (
    f"a plain folder name matching {contract.RELEASE_ID_PATTERN} of at most {contract.RELEASE_ID_MAX_LENGTH} "
    "characters (letters, digits, '.', '_', '-'; not '.' or '..')"
)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def safe_release_id(value: Any) -> bool:
    """A release id that is a plain folder name: [A-Za-z0-9._-]+, at most
    RELEASE_ID_MAX_LENGTH characters, and not '.' or '..'."""
    return (
        isinstance(value, str)
        and len(value) <= contract.RELEASE_ID_MAX_LENGTH
        and re.fullmatch(contract.RELEASE_ID_PATTERN, value) is not None
        and value not in (".", "..")
    )


def check_manifest(release: Release, recorder: Recorder) -> str | None:
    """Stage 1. Returns the release id when the manifest names a safe one."""
    rec = recorder.stage("manifest")
    release_dir = release.folder
    path = release_dir / contract.MANIFEST
    manifest = release.manifest
    if manifest is None:
        if release.manifest_error is not None:
            problem = f"{contract.MANIFEST} cannot be read: {release.manifest_error}"
        elif (kind := file_kind(path)) == "missing":
            problem = f"{contract.MANIFEST} is missing from {release_dir}"
        else:
            problem = f"{contract.MANIFEST} is {kind}, not a regular file"
        rec.failed("manifest_json", examples=[contract.MANIFEST], message=problem)
    else:
        rec.passed("manifest_json")

    listed: dict[str, Any] | None = None
    release_id: str | None = None
    if manifest is None:
        for check in _MANIFEST_CHECKS + ("unlisted_files", "file_sha256", "file_rows"):
            rec.skip(check, f"needs a readable {contract.MANIFEST}")
    else:
        release_id = _check_header(manifest, rec)
        listed = _check_listing(manifest, rec)

    irregular = _check_regular(release, rec)
    _check_inside(release, rec)
    _check_present(release, listed, irregular, rec)
    if listed is not None:
        _check_unlisted(release, listed, rec)
        _check_files(release, listed, rec)
    return release_id


def _check_header(manifest: Mapping[str, Any], rec: StageRecorder) -> str | None:

    def field(name: str) -> str:
        return repr_json(manifest[name]) if name in manifest else "missing"

    if manifest.get("benchmark") == contract.BENCHMARK:
        rec.passed("manifest_benchmark", column="benchmark")
    else:
        shown = field("benchmark")
        rec.failed(
            "manifest_benchmark",
            column="benchmark",
            examples=[shown],
            message=f"benchmark is {shown}; a DistressBench release says {quote(contract.BENCHMARK)}",
        )

    version = manifest.get("schema_version")
    if _is_int(version) and version == contract.SCHEMA_VERSION:
        rec.passed("manifest_schema_version", column="schema_version")
    else:
        shown = field("schema_version")
        rec.failed(
            "manifest_schema_version",
            column="schema_version",
            examples=[shown],
            message=f"schema_version is {shown}; this gate reads schema_version {contract.SCHEMA_VERSION} "
            "(the integer)",
        )

    release = manifest.get("release")
    if safe_release_id(release):
        rec.passed("manifest_release_id", column="release")
    else:
        shown = field("release")
        rec.failed(
            "manifest_release_id",
            column="release",
            examples=[shown],
            message=f"release id is {shown}; it must be {_RELEASE_ID_RULE}",
        )
        release = None

    _check_created_at(manifest, rec)

    if isinstance(manifest.get("synthetic"), bool):
        rec.passed("manifest_synthetic", column="synthetic")
    else:
        shown = field("synthetic")
        rec.failed(
            "manifest_synthetic",
            column="synthetic",
            examples=[shown],
            message=f"synthetic is {shown}; it must be true (a generated stand-in) or false (the published corpus)",
        )
    _check_derived_from(manifest, rec)
    _check_primary_judge(manifest, rec)
    return release


def _check_created_at(manifest: Mapping[str, Any], rec: StageRecorder) -> None:
    """manifest_created_at: required, an ISO 8601 timestamp (date and time)."""
    value = manifest.get("created_at")
    if isinstance(value, str) and _TIMESTAMP.match(value):
        try:
            datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            rec.passed("manifest_created_at", column="created_at")
            return
    shown = repr_json(value)[:80] if "created_at" in manifest else "missing"
    rec.failed(
        "manifest_created_at",
        column="created_at",
        examples=[shown],
        message=f'created_at is {shown}; it must be an ISO 8601 timestamp such as "2026-11-01T00:00:00Z"',
    )


def _check_derived_from(manifest: Mapping[str, Any], rec: StageRecorder) -> None:
    """manifest_derived_from: optional; when present {"release": <id>, "manifest_sha256": <64 hex>}."""
    if "derived_from" not in manifest:
        rec.passed("manifest_derived_from", column="derived_from")
        return
    value = manifest["derived_from"]
    problems: list[str] = []
    if not isinstance(value, dict):
        problems.append(f"it is {repr_json(value)[:80]}, not an object")
    else:
        extra = sorted(set(value) - {"release", "manifest_sha256"})
        if extra:
            problems.append(f"unknown key{'s' if len(extra) > 1 else ''} {', '.join(quote(k) for k in extra)}")
        if not safe_release_id(value.get("release")):
            problems.append(f"release is {repr_json(value.get('release'))[:80]}, not {_RELEASE_ID_RULE}")
        sha = value.get("manifest_sha256")
        if not (isinstance(sha, str) and _SHA256.fullmatch(sha)):
            problems.append(f"manifest_sha256 is {repr_json(sha)[:80]}, not 64 hex digits")
    if problems:
        rec.failed(
            "manifest_derived_from",
            column="derived_from",
            n_failed=len(problems),
            examples=problems,
            message='derived_from must be {"release": <base release id>, "manifest_sha256": <64 hex digits>}: '
            + "; ".join(problems),
        )
    else:
        rec.passed("manifest_derived_from", column="derived_from")


def _check_primary_judge(manifest: Mapping[str, Any], rec: StageRecorder) -> None:
    """manifest_primary_judge: optional; when present a non-empty judge_id string (that the
    judge has labels is checked with the schemas, primary_judge_labelled)."""
    value = manifest.get("primary_judge")
    if "primary_judge" not in manifest or (isinstance(value, str) and value.strip()):
        rec.passed("manifest_primary_judge", column="primary_judge")
        return
    shown = repr_json(value)[:80]
    rec.failed(
        "manifest_primary_judge",
        column="primary_judge",
        examples=[shown],
        message=f"primary_judge is {shown}; when given it must be the judge_id (a non-empty string) of the judge whose "
        "labels give the headline judge self-consistency",
    )


def repr_json(value: Any) -> str:
    """A manifest value as JSON (strings double-quoted), or its repr if it is not JSON; a
    long one cut to a readable prefix and its length."""
    if isinstance(value, str):
        return quote(value)
    try:
        return messages.shown(json.dumps(value, ensure_ascii=False), str)
    except (TypeError, ValueError):
        return messages.shown(repr(value), str)


def _check_listing(manifest: Mapping[str, Any], rec: StageRecorder) -> dict[str, Any] | None:
    """manifest_files: the listed file set is the contract's and every entry is {sha256, rows}."""
    files = manifest.get("files")
    if not isinstance(files, dict):
        shown = "missing" if "files" not in manifest else f"a {type(files).__name__}"
        rec.failed(
            "manifest_files",
            column="files",
            examples=["files"],
            message=f"files is {shown}; it must map each table file to its sha256 and row count",
        )
        for check in ("unlisted_files", "file_sha256", "file_rows"):
            rec.skip(check, "needs the manifest's files listing")
        return None
    problems: list[str] = []
    for table in contract.REQUIRED_TABLES:
        if contract.file_name(table) not in files:
            problems.append(f"{quote(contract.file_name(table))} (required, not listed)")
    for name, entry in files.items():
        if name not in _CONTRACT_FILES:
            problems.append(f"{quote(name)} (not a file of the contract)")
            continue
        if not isinstance(entry, dict):
            problems.append(f"{quote(name)} (entry is not an object)")
            continue
        sha, rows = entry.get("sha256"), entry.get("rows")
        if not (isinstance(sha, str) and _SHA256.fullmatch(sha)):
            problems.append(f"{quote(name)} (sha256 is not 64 hex digits)")
        if not (_is_int(rows) and rows >= 0):
            problems.append(f"{quote(name)} (rows is not a non-negative integer)")
    if problems:
        rec.failed(
            "manifest_files",
            column="files",
            n_failed=len(problems),
            examples=problems[:20],
            message=f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in the manifest's files listing "
            "(it must list exactly the contract's tables, the red-team annex optional): "
            f"{listing(problems[:20], len(problems))}",
        )
    else:
        rec.passed("manifest_files", column="files")
    return files


def _check_regular(release: Release, rec: StageRecorder) -> set[str]:
    """regular_files: every contract file name present in the folder is a regular file (a
    FIFO would hang whoever opens it). Returns the names that are not; nothing opens them."""
    irregular = {name: kind for name, kind in release.kinds.items() if kind != "a regular file"}
    if not irregular:
        rec.passed("regular_files")
        return set()
    examples = [f"{quote(name)} ({kind})" for name, kind in sorted(irregular.items())]
    rec.failed(
        "regular_files",
        n_failed=len(examples),
        examples=examples,
        message=f"{len(examples)} release file{'s are' if len(examples) != 1 else ' is'} not a regular file "
        f"and will not be opened: {listing(examples, len(examples))}",
    )
    return set(irregular)


def _check_inside(release: Release, rec: StageRecorder) -> None:
    """files_inside: no contract file name is a symlink that leads out of the release folder
    (a release's files lie inside it; nothing reads those that do)."""
    outside = sorted(release.outside)
    if not outside:
        rec.passed("files_inside")
        return
    examples = [quote(name) for name in outside]
    rec.failed(
        "files_inside",
        n_failed=len(outside),
        examples=examples,
        message=f"{len(outside)} release file{'s are symlinks' if len(outside) != 1 else ' is a symlink'} to a file "
        f"outside the release folder and will not be read: {listing(examples, len(outside))}",
    )


def _check_present(release: Release, listed: dict[str, Any] | None, irregular: set[str], rec: StageRecorder) -> None:
    """files_present: every required table file and every listed contract file is in the
    folder (one that is there but not a regular file is reported by regular_files)."""
    wanted = [(contract.file_name(t), "required") for t in contract.REQUIRED_TABLES]
    for name in listed or {}:
        if name in _CONTRACT_FILES and contract.table_name(name) not in contract.REQUIRED_TABLES:
            wanted.append((name, "listed in the manifest"))
    missing = [(name, why) for name, why in wanted if name not in irregular and name not in release.kinds]
    if not missing:
        rec.passed("files_present")
        return
    examples = [f"{quote(name)} ({why})" for name, why in missing]
    tables = ", ".join(contract.table_name(name) for name, _ in missing)
    rec.failed(
        "files_present",
        table=tables,
        n_failed=len(missing),
        examples=examples,
        message=f"{len(missing)} table file{'s are' if len(missing) != 1 else ' is'} missing from the folder: "
        f"{listing(examples, len(missing))}",
    )


def _check_unlisted(release: Release, listed: dict[str, Any], rec: StageRecorder) -> None:
    """unlisted_files: the folder holds no Parquet file the manifest does not list."""
    extra = [name for name in release.parquet_names if name not in listed]
    if not extra:
        rec.passed("unlisted_files")
        return
    examples = [quote(name) for name in extra[:20]]
    rec.failed(
        "unlisted_files",
        n_failed=len(extra),
        examples=examples,
        message=f"{len(extra)} Parquet file{'s' if len(extra) != 1 else ''} in the folder "
        f"{'are' if len(extra) != 1 else 'is'} not listed in {contract.MANIFEST}: {listing(examples, len(extra))}",
    )


def _check_files(release: Release, listed: dict[str, Any], rec: StageRecorder) -> None:
    """file_sha256 and file_rows, per listed contract file that is present and well described
    (its sha256 and footer as the release was loaded)."""
    for name, entry in listed.items():
        if name not in _CONTRACT_FILES or not isinstance(entry, dict) or name in release.outside:
            continue
        table = _CONTRACT_FILES[name]
        file = release.files.get(table)
        if file is None:
            continue
        expected_sha = entry.get("sha256")
        if isinstance(expected_sha, str) and _SHA256.fullmatch(expected_sha):
            actual = file.sha256
            if actual == expected_sha.lower():
                rec.passed("file_sha256", table)
            else:
                problem = (
                    f"{name} cannot be read to check its sha256: {file.read_error}"
                    if actual is None
                    else f"{name} has sha256 {actual} but {contract.MANIFEST} says {expected_sha}"
                )
                rec.failed("file_sha256", table=table, examples=[name], message=problem)
        expected_rows = entry.get("rows")
        if _is_int(expected_rows) and expected_rows >= 0:
            actual_rows = file.rows
            if actual_rows is None:
                rec.skip(f"file_rows {table}", f"{name} is not readable Parquet (see parquet_readable)")
                continue
            if actual_rows == expected_rows:
                rec.passed("file_rows", table)
            else:
                rec.failed(
                    "file_rows",
                    table=table,
                    n_failed=abs(actual_rows - expected_rows),
                    examples=[name],
                    message=f"{name} holds {actual_rows} rows but {contract.MANIFEST} says {expected_rows}",
                )


def check_new_folder(out_dir: Path, purpose: str, rec: StageRecorder) -> None:
    """The out_dir_new check: nothing is at `out_dir` yet (`purpose` says what goes there);
    recorded only when it fails."""
    if folders.is_taken(out_dir):
        rec.failed("out_dir_new", examples=[quote(str(out_dir))], message=f"{out_dir} already exists; {purpose}")
