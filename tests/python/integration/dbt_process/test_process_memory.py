"""return_freed_memory: what a finished step freed goes back to the operating system.

Each case runs in a fresh interpreter, so that its resident size is its own: it allocates
~300 MiB one way, frees it, and prints the resident size (MiB) before and after the call.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from distressbench import settings

RESIDENT = """
def resident_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024
"""

ALLOCATIONS = {
    # 64 KiB arrays come from glibc's heap; the one kept last holds its top, so free() alone
    # cannot shrink it
    "c heap": "blocks = [np.ones(8_000) for _ in range(5_000)]\nkept = np.ones(8_000)",
    # Arrow compute results come from Arrow's memory pool
    "arrow pool": "blocks = [pc.multiply(pa.array(np.ones(250_000)), 2) for _ in range(160)]",
}


@pytest.mark.parametrize("allocation", sorted(ALLOCATIONS))
def test_freed_memory_goes_back(allocation: str) -> None:
    script = "\n".join(
        (
            "import numpy as np, pyarrow as pa, pyarrow.compute as pc",
            "from distressbench.dbt.process_memory import return_freed_memory",
            RESIDENT,
            ALLOCATIONS[allocation],
            "del blocks",
            "import gc; gc.collect()",
            "freed = resident_mib()",
            "return_freed_memory()",
            "print(freed, resident_mib())",
        )
    )
    printed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.PROJECT_ROOT / "src",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    freed, returned = map(int, printed.split())
    assert freed - returned >= 200, f"{allocation}: {freed} MiB resident after free(), {returned} MiB after the call"
