"""`distressbench gate`: refuse a release that breaks the release contract.

Three stages, each as far as it can go:

1. manifest -- manifest.json and the file set (gate.files.check_manifest);
2. schema -- each table's Arrow schema, before any value is read (gate.files.check_schemas);
3. values -- every value rule of the contract (gate.rules), as Great Expectations suites over
   the small tables and over small frames DuckDB derives from the big ones (gate.values).

The first two read the release as `release.release.load_release` loaded it, once.

A value check runs when every table it reads has passed stage 2; the others are reported
as skipped. Each check prints one line (`PASS name table.column` or `FAIL name
table.column: what is wrong, how many rows, example keys`) and lands in the JSON report.
"""

from __future__ import annotations

import functools
import gc
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from distressbench import settings
from distressbench.gate import staging
from distressbench.gate.files import check_manifest, check_schemas
from distressbench.gate.results import CheckResult, GateReport, Recorder, listing, quote
from distressbench.release import contract
from distressbench.release.release import Release, load_release

if TYPE_CHECKING:
    from distressbench.gate.gx import GxRunner

__all__ = ["CheckResult", "GateReport", "Recorder", "listing", "quote", "run_gate"]

STAGES = ("manifest", "schema", "values")


@functools.cache
def gx_runner_in_background() -> Callable[[], GxRunner]:
    """Import Great Expectations and set up its context in a thread (DuckDB releases the GIL
    while it builds the staging tables), once per process: at the first gate, or earlier when
    a build starts; the returned call waits for it.

    The import makes about 250,000 objects that live as long as the process, and
    Python's cyclic garbage collector walked all of them in each full collection, holding the
    GIL (at 1x, 0.64-0.79 s of collections in the build's process before dbt builds, most
    of it during the import). So the collector pauses while GX is imported and set up, and
    what exists then is frozen out of it (gc.freeze): 0.02 s of collections instead."""
    outcome: dict[str, Any] = {}

    def load() -> None:
        collecting = gc.isenabled()
        gc.disable()
        try:
            from distressbench.gate.gx import GxRunner

            outcome["runner"] = GxRunner.shared()
        except BaseException as error:  # handed to the caller, which raises it
            outcome["error"] = error
        finally:
            if collecting:
                gc.enable()
        gc.freeze()

    thread = threading.Thread(target=load, name="gx-setup", daemon=True)
    thread.start()

    def wait() -> GxRunner:
        thread.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["runner"]

    return wait


def _build_staging(
    con: duckdb.DuckDBPyConnection,
    tmp: Path,
    release_dir: Path,
    valid_tables: dict[str, Path],
    manifest_ok: bool,
    rec: Recorder,
) -> dict[str, str]:
    """Build the staging layer from the tables that passed the schema stage; one `readable`
    check per model (building it reads and decodes every page of every column). Returns the
    tables that could not be built, with DuckDB's error."""
    manifest = release_dir / contract.MANIFEST if manifest_ok else None
    links = tmp / "release"
    registered = staging.register_sources(con, links, valid_tables, manifest)
    failed = {
        model: error.replace(str(links), str(release_dir))  # name the release's file, not our link to it
        for model, error in staging.build(con, registered).items()
    }
    unreadable: dict[str, str] = {}
    for model in staging.MODELS:
        table = model.reads[0]
        if table == "manifest" and not manifest_ok or table != "manifest" and table not in valid_tables:
            continue
        file = contract.MANIFEST if table == "manifest" else contract.file_name(table)
        if model.name in failed:
            unreadable[table] = failed[model.name]
            rec.failed("readable", "values", table, "*", 1, [file],
                       f"{file} cannot be read in full (every page of every column is decoded, text as UTF-8): "
                       f"{failed[model.name]}")
        else:
            rec.passed("readable", "values", table, "*")
    return unreadable


def run_gate(
    release: Release | Path, report_path: Path | None = None, *, echo: bool = True, database: Path | None = None
) -> GateReport:
    """Check a release (as loaded, or its folder, loaded here) against the contract; print one
    line per check; write the JSON report.

    The staging layer (distressbench.gate.staging) is built in memory, or into `database` (the
    build's unpublished warehouse file), and the value checks run on what was built there."""
    started = time.perf_counter()
    runner = gx_runner_in_background()  # GX's import and set-up overlap the file checks and staging
    if not isinstance(release, Release):
        release = load_release(Path(release))
    release_dir = release.folder
    recorder = Recorder(echo)
    release_id = check_manifest(release, recorder)
    valid_tables = check_schemas(release, recorder)
    with tempfile.TemporaryDirectory(prefix="distressbench-gate-") as tmp:
        config = {
            "memory_limit": settings.memory_limit(),
            "temp_directory": str(Path(tmp) / "spill"),
            "preserve_insertion_order": False,
        }
        con = duckdb.connect(str(database) if database is not None else ":memory:", config=config)
        try:
            # the manifest's staging model reads its header fields: only a manifest that passed
            # every manifest check is built (a failed one is already reported by name)
            manifest_ok = release_id is not None and all(c.passed for c in recorder.checks if c.stage == "manifest")
            unreadable = _build_staging(con, Path(tmp), release_dir, valid_tables, manifest_ok, recorder)
            gx_runner = runner()  # first: gate.values imports GX too, and needs its import to have ended
            from distressbench.gate.values import check_values

            check_values(con, set(release.files), valid_tables, recorder, gx_runner, unreadable)
            if database is not None:
                con.execute("checkpoint")
        finally:
            con.close()
    report = GateReport(
        release_dir=str(release_dir),
        passed=all(c.passed for c in recorder.checks) and bool(recorder.checks),
        checks=recorder.checks,
        skipped=recorder.skipped,
        release_id=release_id,
        seconds=time.perf_counter() - started,
    )
    if echo:
        verdict = "PASSED" if report.passed else "FAILED"
        n_failed, n_checks = len(report.failures), len(report.checks)
        detail = f"{n_failed} of {n_checks} checks failed" if n_failed else f"{n_checks} checks"
        skipped = f", {len(report.skipped)} skipped" if report.skipped else ""
        print(f"gate {verdict}: {release_dir} ({detail}{skipped}, {report.seconds:.1f} s)", flush=True)
    if report_path is not None:
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if echo:
            print(f"gate report: {report_path}", file=sys.stderr, flush=True)
    return report
