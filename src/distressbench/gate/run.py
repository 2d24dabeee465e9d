"""`distressbench gate`: refuse a release that breaks the release contract.

Three stages, each as far as it can go:

1. manifest -- manifest.json and the file set (gate.files.check_manifest);
2. schema -- each table's Arrow schema, before any value is read (gate.files.check_schemas);
3. values -- dbt runs the release's staging models (the caller's `staging` step: the tables
   that passed stage 2, each read and decoded in full, into a DuckDB file), then every value
   invariant of the contract runs as Great Expectations suites over the small tables and
   over small frames DuckDB derives from the big ones (gate.values).

The first two read the release as `release.release.load_release` loaded it, once.

A value check runs when every table it reads has passed stage 2; the others are reported
as skipped. Each check prints one line (`PASS name table.column` or `FAIL name
table.column: what is wrong, how many rows, example keys`) and lands in the JSON report.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from distressbench.dbt.staging import Staging, StagingResult
from distressbench.gate.files import check_manifest, check_schemas
from distressbench.gate.results import CheckResult, GateReport, Recorder, listing, quote
from distressbench.release import contract
from distressbench.release.release import Release, load_release

__all__ = ["CheckResult", "GateReport", "Recorder", "StagingResult", "listing", "quote", "run_gate"]

STAGES = ("manifest", "schema", "values")


def _readable_checks(result: StagingResult, tables: dict[str, Path], manifest_ok: bool, rec: Recorder) -> None:
    """One `readable` check per table dbt read (building it reads and decodes every page of
    every column)."""
    for table in [*(["manifest"] if manifest_ok else []), *tables]:
        file = contract.MANIFEST if table == "manifest" else contract.file_name(table)
        if table in result.unreadable:
            rec.failed(
                "readable",
                "values",
                table,
                "*",
                1,
                [file],
                f"{file} cannot be read in full (every page of every column is decoded, text as UTF-8): "
                f"{result.unreadable[table]}",
            )
        else:
            rec.passed("readable", "values", table, "*")


def run_gate(
    release: Release | Path,
    report_path: Path | None = None,
    *,
    echo: bool = True,
    memory_limit: str,
    staging: Staging,
) -> GateReport:
    """Check a release (as loaded, or its folder, loaded here) against the contract; print one
    line per check; write the JSON report."""
    started = time.perf_counter()
    if not isinstance(release, Release):
        release = load_release(Path(release))
    release_dir = release.folder
    recorder = Recorder(echo)
    release_id = check_manifest(release, recorder)
    valid_tables = check_schemas(release, recorder)
    # the manifest's staging model reads its header fields: only a manifest that passed every
    # manifest check is read (a failed one is already reported by name)
    manifest_ok = release_id is not None and all(c.passed for c in recorder.checks if c.stage == "manifest")
    built_when_done = staging(release_dir, valid_tables, release_dir / contract.MANIFEST if manifest_ok else None)
    from distressbench.gate.gx import GxRunner  # imported while the staging runs
    from distressbench.gate.values import check_values

    built = built_when_done()
    valid_tables = {table: path for table, path in valid_tables.items() if table not in built.not_read}
    _readable_checks(built, valid_tables, manifest_ok, recorder)
    with tempfile.TemporaryDirectory(prefix="distressbench-gate-") as spill:
        config = {"memory_limit": memory_limit, "temp_directory": spill, "preserve_insertion_order": False}
        with duckdb.connect(str(built.database), config=config) as con:
            if "judge_labels" in valid_tables:
                # the raw labels, read in place (the checks of repeated label keys read them)
                link = str(built.links / contract.file_name("judge_labels")).replace("'", "''")
                con.execute(
                    "create temp view release_source__judge_labels as "
                    f"select * from read_parquet('{link}', file_row_number = true)"
                )
            check_values(con, set(release.files), valid_tables, recorder, GxRunner(), built.unreadable)
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
