"""A release folder read once: its manifest parsed and hashed, and each table file hashed
with its row count and columns read from the Parquet footer.

`load_release(folder)` builds the one `Release` that every later stage takes (the gate's
file and schema checks, the gate's run, `submit`, the build and the Spark build). Loading
never raises for a broken release: what could not be read is kept with the reason, for the
gate to report by name. Only the build's verify stage reads the files again, to check that
what it publishes is what was loaded.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from distressbench.release import contract
from distressbench.release.manifest import file_kind, parse_manifest, read_manifest_bytes, sha256_of

_HASH_THREADS = 2


@dataclass(frozen=True)
class TableFile:
    """One table file of the release as loaded: `columns` is (name, logical type) per
    top-level column (`parquet_columns`). `columns` and `rows` are None when the
    Parquet footer could not be read (`footer_error` says why); `sha256` is None when the
    file could not be read at all (`read_error` says why)."""

    table: str
    path: Path
    sha256: str | None
    rows: int | None
    columns: tuple[tuple[str, str], ...] | None
    footer_error: str | None = None
    read_error: str | None = None


@dataclass(frozen=True)
class Release:
    """A release folder, read once. `manifest` is None when manifest.json is absent or not
    a regular file (manifest_error None) or cannot be read (manifest_error says why);
    `files` maps each contract table present as a regular file inside the folder to what
    was read of it. What the folder held: `kinds`, what is at each contract file name
    present ('a regular file', 'a folder', 'a FIFO', 'a broken symlink', ...); `outside`,
    those that are symlinks leading out of the folder; `parquet_names`, every *.parquet name
    in it."""

    folder: Path
    manifest: Mapping[str, Any] | None
    manifest_error: str | None
    manifest_sha256: str | None
    files: Mapping[str, TableFile]
    kinds: Mapping[str, str]
    outside: frozenset[str]
    parquet_names: tuple[str, ...]

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
    present = {t: p for t, p in contract.release_files(folder).items() if not leads_outside(folder, p.name)}
    with ThreadPoolExecutor(max_workers=_HASH_THREADS) as pool:
        loaded = list(pool.map(_load_file, present.keys(), present.values()))
    names = [contract.MANIFEST, *(contract.file_name(t) for t in contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES)]
    there = [name for name in names if os.path.lexists(folder / name)]
    return Release(
        folder=folder,
        manifest=manifest,
        manifest_error=error,
        manifest_sha256=digest,
        files=MappingProxyType({file.table: file for file in loaded}),
        kinds=MappingProxyType({name: file_kind(folder / name) for name in there}),
        outside=frozenset(name for name in there if leads_outside(folder, name)),
        parquet_names=tuple(sorted(p.name for p in folder.iterdir() if p.name.endswith(".parquet")))
        if folder.is_dir()
        else (),
    )


def _load_manifest(path: Path) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """(parsed manifest, why it could not be read, sha256 of its bytes)."""
    if not path.is_file():
        return None, None, None
    if leads_outside(path.parent, path.name):
        return None, "it is a symlink to a file outside the release folder", None
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
            return TableFile(table, path, digest, footer.metadata.num_rows, tuple(parquet_columns(footer)))
    except (OSError, pa.ArrowException) as error:
        return TableFile(table, path, digest, None, None, str(error))


def leads_outside(release_dir: Path, name: str) -> bool:
    """Whether release_dir/name is a symlink whose target lies outside the release folder."""
    path = release_dir / name
    return path.is_symlink() and not path.resolve().is_relative_to(release_dir.resolve())


# the type a Parquet column without a logical type has, by its physical type
_PHYSICAL = {
    "BOOLEAN": "bool",
    "INT32": "int32",
    "INT64": "int64",
    "INT96": "timestamp[ns]",
    "FLOAT": "float",
    "DOUBLE": "double",
    "BYTE_ARRAY": "binary",
}


def _leaves(arrow_type: pa.DataType) -> int:
    """How many Parquet leaf columns a top-level field of this Arrow type is stored as."""
    if pa.types.is_struct(arrow_type):
        return sum(_leaves(arrow_type.field(i).type) for i in range(arrow_type.num_fields))
    if pa.types.is_map(arrow_type):
        return _leaves(arrow_type.key_type) + _leaves(arrow_type.item_type)
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type):
        return _leaves(arrow_type.value_type)
    if pa.types.is_list_view(arrow_type) or pa.types.is_large_list_view(arrow_type):
        return _leaves(arrow_type.value_type)
    return 1


def _logical_type(column: pq.ColumnSchema) -> str:
    """A flat column's type as its Parquet schema gives it, named as Arrow names it: 'string'
    for any UTF-8 byte array, 'int32', 'int64', 'double', 'bool', 'binary', 'date', ..."""
    logical = json.loads(column.logical_type.to_json())
    kind = logical.get("Type", "None")
    if kind == "String" or column.converted_type == "UTF8":
        return "string"
    if kind == "Int":
        return f"{'' if logical.get('isSigned', True) else 'u'}int{logical.get('bitWidth', '')}"
    if kind == "None":
        if column.physical_type == "FIXED_LEN_BYTE_ARRAY":
            return f"fixed_size_binary[{column.length}]"
        return _PHYSICAL.get(column.physical_type, column.physical_type.lower())
    return str(kind).lower()


def parquet_columns(source: Path | pq.ParquetFile) -> list[tuple[str, str]]:
    """(name, type) of each top-level column of a Parquet file, the type decided by the Parquet
    schema alone (the embedded Arrow schema is used only to group the leaves of a nested column,
    whose type is then shown as Arrow's)."""
    parquet_file = source if isinstance(source, pq.ParquetFile) else pq.ParquetFile(source)
    leaves, arrow = parquet_file.schema, parquet_file.schema_arrow
    columns: list[tuple[str, str]] = []
    leaf = 0
    for field in arrow:
        count = _leaves(field.type)
        column = leaves.column(leaf)
        flat = count == 1 and column.max_repetition_level == 0 and column.max_definition_level <= 1
        columns.append((field.name, _logical_type(column) if flat else str(field.type)))
        leaf += count
    return columns
