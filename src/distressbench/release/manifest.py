"""Reading and writing a release's manifest.json."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from distressbench.release import contract

_CHUNK = 1 << 20


def file_kind(path: Path) -> str:
    """'a regular file', 'a folder', 'a FIFO', ... for what is at `path` (symlinks followed)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a broken symlink" if path.is_symlink() else "missing"
    kinds = (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def _open_regular(path: Path) -> int:
    """A descriptor of `path`, opened without blocking (a FIFO never hangs the caller);
    ValueError unless it is a regular file."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise ValueError(f"{path} is {file_kind(path)}, not a regular file")
    return descriptor


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with os.fdopen(_open_regular(path), "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def parquet_rows(path: Path) -> int:
    """Row count from the Parquet footer, without reading any data."""
    return pq.ParquetFile(path).metadata.num_rows


def write_manifest(
    release_dir: Path,
    release_id: str,
    *,
    synthetic: bool,
    created_at: str,
    derived_from: dict[str, str] | None = None,
    reply_sources: dict[str, dict[str, Any]] | None = None,
    primary_judge: str | None = None,
) -> Path:
    """Describe every table file present in release_dir (sha256, rows) in manifest.json;
    `derived_from` ({"release": base id, "manifest_sha256": hex}) names the release it extends,
    `reply_sources` (response_id -> {"log", "sample", "epoch"}) where submitted replies came from,
    `primary_judge` the release's primary judge."""
    files = {
        path.name: {"sha256": sha256_of(path), "rows": parquet_rows(path)}
        for _, path in sorted(contract.release_files(release_dir).items())
    }
    manifest = {
        "benchmark": contract.BENCHMARK,
        "release": release_id,
        "schema_version": contract.SCHEMA_VERSION,
        "created_at": created_at,
        "synthetic": synthetic,
        "files": files,
    }
    if derived_from is not None:
        manifest["derived_from"] = derived_from
    if reply_sources:
        manifest["reply_sources"] = reply_sources
    if primary_judge is not None:
        manifest["primary_judge"] = primary_judge
    out = release_dir / contract.MANIFEST
    out.write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return out


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    doubled = sorted({key for key in keys if keys.count(key) > 1})
    if doubled:
        raise ValueError(f"key {', '.join(json.dumps(k, ensure_ascii=False) for k in doubled)} appears more than once")
    return dict(pairs)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _nesting_depth(text: str) -> int:
    """How deeply objects and arrays nest in a JSON text (strings skipped), without parsing it."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def read_manifest(release_dir: Path) -> dict[str, Any]:
    """The parsed manifest, read strictly: a regular file of at most MANIFEST_MAX_BYTES,
    UTF-8, nested at most MANIFEST_MAX_DEPTH deep, no repeated key, no NaN or Infinity, a
    JSON object. Raises ValueError naming the file and the problem."""
    path = release_dir / contract.MANIFEST
    return parse_manifest(read_manifest_bytes(path), path)


def read_manifest_bytes(path: Path) -> bytes:
    """The manifest's bytes, at most one past MANIFEST_MAX_BYTES (ValueError unless a regular file)."""
    with os.fdopen(_open_regular(path), "rb") as handle:
        return handle.read(contract.MANIFEST_MAX_BYTES + 1)


def parse_manifest(data: bytes, path: Path) -> dict[str, Any]:
    """The manifest in `data` (read from `path`, which messages name), read as read_manifest says."""
    limit = contract.MANIFEST_MAX_BYTES
    if len(data) > limit:
        raise ValueError(f"{path}: larger than {limit} bytes; a manifest lists a few files")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 ({error})") from error
    depth = _nesting_depth(text)
    if depth > contract.MANIFEST_MAX_DEPTH:
        raise ValueError(f"{path}: nested {depth} deep; at most {contract.MANIFEST_MAX_DEPTH} levels are read")
    try:
        manifest = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON ({error})") from error
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from error
    if not isinstance(manifest, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(manifest).__name__}")
    return manifest


def manifest_sha256(release_dir: Path) -> str:
    return sha256_of(release_dir / contract.MANIFEST)
