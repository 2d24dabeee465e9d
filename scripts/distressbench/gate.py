"""`distressbench gate`: refuse a release that breaks the release contract.

Three stages, each as far as it can go:

1. manifest -- manifest.json and the file set (gate_files.check_manifest);
2. schema -- each table's Arrow schema, before any value is read (gate_files.check_schemas);
3. values -- every value invariant of the contract, as Great Expectations suites over the
   small tables and over small frames DuckDB derives from the big ones (gate_values).

A value check runs when every table it reads has passed stage 2; the others are reported
as skipped. Each check prints one line (`PASS name table.column` or `FAIL name
table.column: what is wrong, how many rows, example keys`) and lands in the JSON report.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

STAGES = ("manifest", "schema", "values")


@dataclass
class CheckResult:
    """The outcome of one check. n_failed counts offending rows (or files, columns, ...)."""

    check: str
    stage: str
    passed: bool
    table: str | None
    column: str | None
    n_failed: int
    examples: list[str]
    message: str

    @property
    def where(self) -> str:
        if self.table and self.column:
            return f"{self.table}.{self.column}"
        if self.column and self.stage == "manifest":
            return f"manifest.{self.column}"
        return self.table or self.column or ""

    @property
    def label(self) -> str:
        """Check name and location, e.g. 'weight_range criteria.weight'."""
        return f"{self.check} {self.where}".rstrip()

    def line(self) -> str:
        return f"PASS {self.label}" if self.passed else f"FAIL {self.label}: {self.message}"


@dataclass
class GateReport:
    release_dir: str
    passed: bool
    checks: list[CheckResult]
    skipped: list[str] = field(default_factory=list)
    release_id: str | None = None
    seconds: float = 0.0

    @property
    def failures(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed]

    def to_json(self) -> dict[str, Any]:
        return {
            "release_dir": self.release_dir,
            "release_id": self.release_id,
            "passed": self.passed,
            "n_checks": len(self.checks),
            "n_failed": len(self.failures),
            "seconds": round(self.seconds, 3),
            "checks": [asdict(c) | {"label": c.label} for c in self.checks],
            "skipped": list(self.skipped),
        }


class Recorder:
    """Collects check results (and skips) and echoes each as one line."""

    def __init__(self, echo: bool) -> None:
        self.checks: list[CheckResult] = []
        self.skipped: list[str] = []
        self._echo = echo

    def add(self, result: CheckResult) -> None:
        self.checks.append(result)
        if self._echo:
            print(result.line(), flush=True)

    def skip(self, what: str, reason: str, checks: list[str] | None = None) -> None:
        """A check (or group of checks, listed in the report) that could not run."""
        self.skipped.append(f"{what}: {reason}" + (f" [{', '.join(checks)}]" if checks else ""))
        if self._echo:
            print(f"SKIP {what}: {reason}", flush=True)

    def passed(self, check: str, stage: str, table: str | None = None, column: str | None = None) -> None:
        self.add(CheckResult(check, stage, True, table, column, 0, [], "ok"))

    def failed(
        self,
        check: str,
        stage: str,
        table: str | None,
        column: str | None,
        n_failed: int,
        examples: list[str],
        message: str,
    ) -> None:
        self.add(CheckResult(check, stage, False, table, column, n_failed, examples, message))


def quote(text: str) -> str:
    """A string as the gate shows it: double-quoted, escapes visible, Unicode kept."""
    return json.dumps(text, ensure_ascii=False)


def listing(examples: list[str], total: int) -> str:
    """'a, b, c' plus how many more there are than the examples shown."""
    more = total - len(examples)
    return ", ".join(examples) + (f" and {more} more" if more > 0 else "")


def run_gate(release_dir: Path, report_path: Path | None = None, *, echo: bool = True) -> GateReport:
    """Check a release folder against the contract; print one line per check; write the JSON report."""
    from distressbench.gate_files import check_manifest, check_schemas
    from distressbench.gate_values import check_values

    started = time.perf_counter()
    release_dir = Path(release_dir)
    recorder = Recorder(echo)
    release_id = check_manifest(release_dir, recorder)
    valid_tables = check_schemas(release_dir, recorder)
    check_values(release_dir, valid_tables, recorder)
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
