"""Writing a synthetic release: the chunked tables task block by task block, the others whole,
then the manifest; and the default release, written once and reused while it is whole."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from distressbench import settings
from distressbench.release import contract, folders
from distressbench.release.manifest import parquet_rows, read_manifest, sha256_of, write_manifest
from distressbench.synth.chunk_tables import chunk_tables
from distressbench.synth.config import SynthConfig
from distressbench.synth.latent import Latent
from distressbench.synth.simulate import Models, Tasks, chunk_size, draw_models, draw_tasks, simulate_chunk
from distressbench.synth.tables import models_table, redteam_table, tasks_table, turns_table

CREATED_AT = "2026-11-01T00:00:00Z"
_COMPRESSION = "zstd"


def _write(table: pa.Table, path: Path) -> None:
    pq.write_table(table, path, compression=_COMPRESSION)


def _progress(total: int, enabled: bool) -> Iterator[int]:
    """Yields chunk numbers; a tqdm bar on a terminal, plain lines otherwise."""
    if enabled and sys.stderr.isatty():
        from tqdm import tqdm

        yield from tqdm(range(total), desc="synth", unit="chunk", file=sys.stderr)
        return
    step = max(1, total // 10)
    for i in range(total):
        yield i
        if enabled and ((i + 1) % step == 0 or i + 1 == total):
            print(f"synth: {i + 1}/{total} chunks", file=sys.stderr, flush=True)


def write_release(out_dir: Path, config: SynthConfig, *, progress: bool = False) -> Path:
    """Write a complete synthetic release (Parquet tables + manifest.json) into out_dir."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    _remove_stale(out_dir)

    latent = Latent()
    models = draw_models(config, latent)
    tasks = draw_tasks(config, latent)
    _write_chunked(out_dir, config, latent, models, tasks, progress)
    _write(tasks_table(config, tasks), out_dir / "tasks.parquet")
    _write(turns_table(config, tasks), out_dir / "turns.parquet")
    _write(models_table(config), out_dir / "models.parquet")
    if config.redteam_transcripts > 0:
        _write(redteam_table(config), out_dir / "redteam_transcripts.parquet")
    write_manifest(out_dir, config.release_id, synthetic=True, created_at=CREATED_AT)
    return out_dir


def _remove_stale(out_dir: Path) -> None:
    """Remove a previous release's manifest and tables, so none outlives this one."""
    stale = [out_dir / contract.MANIFEST] + [
        out_dir / contract.file_name(t) for t in contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES
    ]
    for path in stale:
        path.unlink(missing_ok=True)


def _write_chunked(
    out_dir: Path, config: SynthConfig, latent: Latent, models: Models, tasks: Tasks, progress: bool
) -> None:
    """Simulate the tasks chunk by chunk, appending each chunk's tables to their files."""
    size = chunk_size(config)
    n_chunks = -(-config.n_tasks // size)
    chunked = ("criteria", "responses", "judge_labels", "calibration_labels")
    writers = {
        t: pq.ParquetWriter(out_dir / contract.file_name(t), contract.SCHEMAS[t], compression=_COMPRESSION)
        for t in chunked
    }
    try:
        for i in _progress(n_chunks, progress):
            start, stop = i * size, min((i + 1) * size, config.n_tasks)
            chunk = simulate_chunk(config, latent, models, tasks, start, stop, i)
            for name, table in chunk_tables(config, latent, tasks, chunk, i).items():
                writers[name].write_table(table)
    finally:
        for writer in writers.values():
            writer.close()


def _is_complete(release_dir: Path, release_id: str) -> bool:
    """The folder holds a manifest for this release whose every file matches it."""
    try:
        manifest = read_manifest(release_dir)
    except (OSError, ValueError):
        return False
    files = manifest.get("files")
    if manifest.get("release") != release_id or not isinstance(files, dict):
        return False
    if any(contract.file_name(t) not in files for t in contract.REQUIRED_TABLES):
        return False
    for name, entry in files.items():
        path = release_dir / name
        if not isinstance(entry, dict) or not path.is_file():
            return False
        if sha256_of(path) != entry.get("sha256") or parquet_rows(path) != entry.get("rows"):
            return False
    return True


def ensure_default_release() -> Path:
    """The default synthetic release at settings.DEFAULT_RELEASE_DIR, written if absent or incomplete."""
    target = settings.DEFAULT_RELEASE_DIR
    config = SynthConfig()
    if _is_complete(target, config.release_id):
        return target
    staging = folders.make_beside(target)
    write_release(staging, config)
    if target.exists() and not _is_complete(target, config.release_id):
        shutil.rmtree(target, ignore_errors=True)
    try:
        staging.rename(target)
    except OSError:
        # another process published it first; keep theirs if it is whole
        shutil.rmtree(staging, ignore_errors=True)
        if not _is_complete(target, config.release_id):
            raise
    return target
