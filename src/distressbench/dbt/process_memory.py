"""Handing the memory a finished step has freed back to the operating system.

A process that goes on working after a large pandas, numpy or Arrow step keeps what that
step freed: Arrow's allocator holds freed pages for its next allocations, and glibc's heap
keeps freed blocks below its top. In the release build the bootstrap runs inside dbt's
process, where that memory would stay held, beside DuckDB's, through every model after it
(docs/benchmarks.md, "Kept, and why").
"""

from __future__ import annotations

import ctypes
import gc

import pyarrow as pa


def return_freed_memory() -> None:
    """Collect garbage, then have Arrow's pool and the C heap return their free memory
    (the C heap's only where the C library has glibc's malloc_trim)."""
    gc.collect()
    pa.default_memory_pool().release_unused()
    malloc_trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    if malloc_trim is not None:
        malloc_trim(0)
