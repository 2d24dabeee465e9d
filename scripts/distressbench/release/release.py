"""A release folder read once: its manifest parsed and hashed, and each table file hashed
with its row count and Arrow schema read from the Parquet footer.

`load_release(folder)` builds the one `Release` that every later stage takes (the gate's
file and schema checks, the gate's run, `submit`, the build and the Spark build). Loading
never raises for a broken release: what could not be read is kept with the reason, for the
gate to report by name. Only the build's verify stage reads the files again, to check that
what it publishes is what was loaded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from distressbench.release import contract
from distressbench.release.manifest import parse_manifest, read_manifest_bytes, sha256_of

_HASH_THREADS = 2


@dataclass(frozen=True)
class TableFile:
    """One table file of the release as loaded. `schema` and `rows` are None when the
    Parquet footer could not be read (`footer_error` says why); `sha256` is None when the
    file could not be read at all (`read_error` says why)."""

    table: str
    path: Path
    sha256: str | None
    rows: int | None
    schema: pa.Schema | None
    footer_error: str | None = None
    read_error: str | None = None


@dataclass(frozen=True)
class Release:
    """A release folder, read once. `manifest` is None when manifest.json is absent or not
    a regular file (manifest_error None) or cannot be read (manifest_error says why);
    `files` maps each contract table present as a regular file to what was read of it."""

    folder: Path
    manifest: Mapping[str, Any] | None
    manifest_error: str | None
    manifest_sha256: str | None
    files: Mapping[str, TableFile]

    @property
    def release_id(self) -> str:
        """The manifest's release id (call it only on a release the gate passed)."""
        if self.manifest is None:
            raise ValueError(f"{self.folder / contract.MANIFEST} could not be read: {self.manifest_error}")
        return str(self.manifest["release"])

    @property
    def paths(self) -> dict[str, Path]:
        """table -> path, for the tables present (contract.release_files, as loaded)."""
        return {table: file.path for table, file in self.files.items()}

    def listed_rows(self, table: str) -> int | None:
        """The row count the manifest lists for `table`, if it lists an integer one."""
        files = (self.manifest or {}).get("files")
        entry = files.get(contract.file_name(table)) if isinstance(files, dict) else None
        rows = entry.get("rows") if isinstance(entry, dict) else None
        return rows if isinstance(rows, int) and not isinstance(rows, bool) else None


def load_release(folder: Path) -> Release:
    """Read `folder` once: the manifest's bytes (parsed and hashed from the same read) and
    every contract file present (hashed, its footer read), files two at a time."""
    folder = Path(folder)
    manifest, error, digest = _load_manifest(folder / contract.MANIFEST)
    present = contract.release_files(folder)
    with ThreadPoolExecutor(max_workers=_HASH_THREADS) as pool:
        loaded = list(pool.map(_load_file, present.keys(), present.values()))
    return Release(
        folder=folder,
        manifest=manifest,
        manifest_error=error,
        manifest_sha256=digest,
        files=MappingProxyType({file.table: file for file in loaded}),
    )


def _load_manifest(path: Path) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """(parsed manifest, why it could not be read, sha256 of its bytes)."""
    if not path.is_file():
        return None, None, None
    try:
        data = read_manifest_bytes(path)
    except (ValueError, OSError) as error:
        return None, str(error), None
    digest = hashlib.sha256(data).hexdigest() if len(data) <= contract.MANIFEST_MAX_BYTES else sha256_of(path)
    try:
        return parse_manifest(data, path), None, digest
    except ValueError as error:
        return None, str(error), digest


def _load_file(table: str, path: Path) -> TableFile:
    try:
        digest = sha256_of(path)
    except (ValueError, OSError) as error:
        return TableFile(table, path, None, None, None, str(error), str(error))
    try:
        with pq.ParquetFile(path) as footer:
            return TableFile(table, path, digest, footer.metadata.num_rows, footer.schema_arrow)
    except (OSError, pa.ArrowException) as error:
        return TableFile(table, path, digest, None, None, str(error))
