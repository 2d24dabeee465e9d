"""How soon a mistake is answered (`benchmark.py --mistakes`): `distressbench gate` and `pack`
on a release of the default's size with one mistake, whole processes, medians.

Two mistakes: a schema mistake (an extra column in criteria, which the Arrow schema shows)
and a value-rule mistake (one criterion's weight 25, which only the value rules see). Each
runs as `gate` on the release and as `pack` of its tables (the Parquet files alone, no
manifest) into a new folder; `write` is a process that reads those tables and writes them
again as pack does (the part of pack's time that is not the gate's). One gate runs first,
untimed, so that the staging SQL is compiled for the project's state, as it is for every
gate after the first.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

MISTAKES = ("schema", "value")
# a process that writes the release's tables as pack does (its compression), no more
WRITE = (
    "import sys, pathlib, pyarrow.parquet as pq; from distressbench.pack import COMPRESSION; "
    "source, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]); out.mkdir(); "
    "[pq.write_table(pq.read_table(f), out / f.name, compression=COMPRESSION) "
    "for f in sorted(source.glob('*.parquet'))]"
)


def _with_mistake(release: Path, folder: Path, mistake: str) -> Path:
    """A copy of `release` (its manifest refreshed) with the one `mistake`."""
    from distressbench.release.manifest import read_manifest, write_manifest

    shutil.copytree(release, folder)
    criteria = pq.read_table(folder / "criteria.parquet")
    if mistake == "schema":
        criteria = criteria.append_column("extra", pa.array([1] * criteria.num_rows, pa.int64()))
    else:
        weights = criteria["weight"].to_pylist()
        weights[0] = 25
        index = criteria.schema.get_field_index("weight")
        criteria = criteria.set_column(index, "weight", pc.cast(pa.array(weights), criteria.schema.field(index).type))
    pq.write_table(criteria, folder / "criteria.parquet")
    manifest = read_manifest(folder)
    write_manifest(folder, manifest["release"], synthetic=manifest["synthetic"], created_at=manifest["created_at"])
    return folder


def _wall(command: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, done.returncode


def measure(cli: Path, release: Path, work: Path, runs: int) -> dict[str, Any]:
    """Each mistake's gate, pack and write, `runs` whole processes each (medians, seconds)."""
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(cli), "gate", str(release)], capture_output=True, check=True)  # the SQL compiled once
    rows: dict[str, Any] = {}
    for mistake in MISTAKES:
        broken = _with_mistake(release, work / f"{mistake}-release", mistake)
        sources = work / f"{mistake}-tables"
        sources.mkdir()
        for table in broken.glob("*.parquet"):
            shutil.copyfile(table, sources / table.name)
        times: dict[str, list[float]] = {"gate": [], "pack": [], "write": []}
        for run in range(runs):
            seconds, code = _wall([str(cli), "gate", str(broken)])
            assert code == 1, f"the gate passed a release with a {mistake} mistake"
            times["gate"].append(seconds)
            seconds, code = _wall([str(cli), "pack", str(sources), "--out", str(work / f"{mistake}-packed-{run}")])
            assert code != 0, f"pack accepted tables with a {mistake} mistake"
            times["pack"].append(seconds)
            seconds, _ = _wall([sys.executable, "-c", WRITE, str(sources), str(work / f"{mistake}-written-{run}")])
            times["write"].append(seconds)
        rows[mistake] = {name: statistics.median(values) for name, values in times.items()}
    return rows


def mistakes_doc(rows: dict[str, Any], info: dict[str, str]) -> str:
    """The measured part for docs/benchmarks.md."""
    lines = [
        f"Machine: {info['nproc']} cores, {info['date']}, load average at the start {info['load']}. "
        "A release of the default's size (718 tasks, 25 models), one mistake each; whole processes, "
        "medians of the runs, seconds:",
        "",
        "| mistake | `gate` | `pack` | writing the tables | `pack` − (`gate` + writing) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for mistake, row in rows.items():
        over = row["pack"] - row["gate"] - row["write"]
        lines.append(f"| {mistake} | {row['gate']:.2f} | {row['pack']:.2f} | {row['write']:.2f} | {over:+.2f} |")
    return "\n".join(lines)
