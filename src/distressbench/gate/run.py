"""`distressbench gate`: refuse a release that breaks the release contract.

Three stages, the cheap questions first:

1. manifest -- manifest.json and the file set (gate.files.check_manifest);
2. schema -- each table's Arrow schema, before any value is read (gate.schemas.check_schemas);
3. values -- only when the first two pass: dbt runs the release's staging models (the
   caller's `staging` step: each table read and decoded in full, into a DuckDB file), then
   every value invariant of the contract runs over what was built (gate.values): DuckDB
   counts the probes' offending rows, Great Expectations (imported while the staging runs)
   decides the rules on frames.

The first two read the release as `release.release.load_release` loaded it, once; a mistake
there is answered without starting dbt or importing Great Expectations.

Each passed check prints one line on stdout (`PASS name table.column`), each problem one line
on stderr (`FAIL name table.column: what is wrong, how many rows, example keys`), the failures
another explains named on their cause's line (gate.results); every check lands in the JSON
report.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from distressbench.dbt.staging import Staging, StagingResult
from distressbench.gate.files import check_manifest
from distressbench.gate.results import (
    CheckResult,
    GateReport,
    Recorder,
    StageRecorder,
    attribute_causes,
    listing,
    quote,
)
from distressbench.gate.rules import AFTER, RULES
from distressbench.gate.schemas import check_schemas
from distressbench.release import contract
from distressbench.release.release import Release

__all__ = ["CheckResult", "GateReport", "Recorder", "StagingResult", "listing", "quote", "run_gate"]

STAGES = ("manifest", "schema", "values")


def _readable_checks(result: StagingResult, tables: dict[str, Path], rec: StageRecorder) -> None:
    """One `readable` check per table dbt read (building it reads and decodes every page of
    every column)."""
    for table in ["manifest", *tables]:
        file = contract.MANIFEST if table == "manifest" else contract.file_name(table)
        if table in result.unreadable:
            rec.failed(
                "readable",
                table=table,
                column="*",
                examples=[file],
                message=f"{file} cannot be read in full (every page of every column is decoded, text as UTF-8): "
                f"{result.unreadable[table]}",
            )
        else:
            rec.passed("readable", table, "*")


def run_gate(
    release: Release,
    report_path: Path | None = None,
    *,
    echo: bool = True,
    memory_limit: str,
    staging: Staging,
) -> GateReport:
    """Check a loaded release against the contract; print one line per passed check and one
    per problem's cause; write the JSON report."""
    started = time.perf_counter()
    recorder = Recorder(echo)
    release_id = check_manifest(release, recorder)
    valid_tables = check_schemas(release, recorder)
    if recorder.failures:
        recorder.skip(
            "value checks",
            "they read the release once its manifest, files and schemas pass",
            [item.label for item in RULES],
        )
    else:
        _check_values(release, valid_tables, recorder, memory_limit, staging)
    attribute_causes(recorder.checks, AFTER)
    recorder.print_problems()
    report = GateReport(
        release_dir=str(release.folder),
        passed=not recorder.failures and bool(recorder.checks),
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
        print(f"gate {verdict}: {release.folder} ({detail}{skipped}, {report.seconds:.1f} s)", flush=True)
    if report_path is not None:
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if echo:
            print(f"gate report: {report_path}", file=sys.stderr, flush=True)
    return report


def _check_values(
    release: Release, valid_tables: dict[str, Path], recorder: Recorder, memory_limit: str, staging: Staging
) -> None:
    """Stage 3, on a release whose manifest, files and schemas passed."""
    built_when_done = staging(release.folder, valid_tables, release.folder / contract.MANIFEST)
    from distressbench.gate.gx import GxRunner  # imported while the staging runs
    from distressbench.gate.values import check_values

    built = built_when_done()
    valid_tables = {table: path for table, path in valid_tables.items() if table not in built.not_read}
    _readable_checks(built, valid_tables, recorder.stage("values"))
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
