"""The gate's shared types: a check's result, the recorder that collects them, the report,
and how the gate shows values in its messages. Every gate module imports these from here
(and from nowhere else), so the gate modules form no import circle."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from distressbench.messages import json_quote, shown

N_EXAMPLES = 20  # example keys a failed check shows at most


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
    """A string as the gate shows it: double-quoted, escapes visible, Unicode kept; a long
    one cut to a readable prefix and its length."""
    return shown(text, json_quote)


def listing(examples: list[str], total: int) -> str:
    """'a, b, c' plus how many more there are than the examples shown."""
    more = total - len(examples)
    return ", ".join(examples) + (f" and {more} more" if more > 0 else "")
