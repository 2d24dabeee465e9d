"""Reading and writing a release's manifest.json."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from distressbench import contract

_CHUNK = 1 << 20


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
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
) -> Path:
    """Describe every table file present in release_dir (sha256, rows) in manifest.json;
    `derived_from` ({"release": base id, "manifest_sha256": hex}) names the release it extends."""
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
    out = release_dir / contract.MANIFEST
    out.write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return out


def read_manifest(release_dir: Path) -> dict[str, Any]:
    """The parsed manifest; raises ValueError naming the file when it is not a JSON object."""
    path = release_dir / contract.MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON ({error})") from error
    if not isinstance(manifest, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(manifest).__name__}")
    return manifest


def manifest_sha256(release_dir: Path) -> str:
    return sha256_of(release_dir / contract.MANIFEST)
