"""The gate's shared types: a check's result, the recorder that collects them, the report,
and how the gate shows values in its messages. Every gate module imports these from here
(and from nowhere else), so the gate modules form no import circle.

Passed and skipped checks are reported on stdout as they are recorded; problems go to
stderr, one line per cause: a failure another failed check explains (rules.yml's `after`)
is named on its cause's line, not on a line of its own."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
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
    caused_by: str | None = None  # the label of the failed check that explains this failure

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
    """Collects check results (and skips); echoes each passed or skipped one as a line on stdout
    (the failures are printed together, by cause: `print_problems`)."""

    def __init__(self, echo: bool) -> None:
        self.checks: list[CheckResult] = []
        self.skipped: list[str] = []
        self._echo = echo

    def add(self, result: CheckResult) -> None:
        self.checks.append(result)
        if self._echo and result.passed:
            print(result.line(), flush=True)

    def skip(self, what: str, reason: str, checks: list[str] | None = None) -> None:
        """A check (or group of checks, listed in the report) that could not run."""
        self.skipped.append(f"{what}: {reason}" + (f" [{', '.join(checks)}]" if checks else ""))
        if self._echo:
            print(f"SKIP {what}: {reason}", flush=True)

    def stage(self, name: str) -> StageRecorder:
        """This recorder, bound to one stage of the gate."""
        return StageRecorder(self, name)

    @property
    def failures(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed]

    def print_problems(self) -> None:
        """The failures on stderr, one line per cause (when echoing)."""
        if self._echo:
            for line in problem_lines(self.failures):
                print(line, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class StageRecorder:
    """A Recorder bound to one stage: what each check of that stage records."""

    recorder: Recorder
    name: str

    def passed(self, check: str, table: str | None = None, column: str | None = None) -> None:
        self.recorder.add(CheckResult(check, self.name, True, table, column, 0, [], "ok"))

    def failed(
        self,
        check: str,
        *,
        table: str | None = None,
        column: str | None = None,
        n_failed: int = 1,
        examples: Iterable[str] = (),
        message: str,
        caused_by: str | None = None,
    ) -> None:
        self.recorder.add(
            CheckResult(check, self.name, False, table, column, n_failed, list(examples), message, caused_by)
        )

    def skip(self, what: str, reason: str, checks: list[str] | None = None) -> None:
        self.recorder.skip(what, reason, checks)


def attribute_causes(checks: Iterable[CheckResult], after: Mapping[str, tuple[str, ...]]) -> None:
    """Set `caused_by` of each failure that a failed check it comes after explains (`after`:
    check label -> the labels whose failure would explain its own), to the first such cause
    followed back to one that nothing explains (a cause the check already names is kept)."""
    checks = list(checks)
    failed = {c.label for c in checks if not c.passed}

    def root(label: str, seen: frozenset[str]) -> str:
        for cause in after.get(label, ()):
            if cause in failed and cause not in seen:
                return root(cause, seen | {cause})
        return label

    for check in checks:
        if not check.passed and check.caused_by is None:
            cause = root(check.label, frozenset({check.label}))
            check.caused_by = cause if cause != check.label else None


def problem_lines(failures: Iterable[CheckResult]) -> list[str]:
    """One line per cause: each failure no other explains, with the checks that depend on it
    named after its message."""
    failures = list(failures)
    dependents: dict[str, list[str]] = {}
    for failure in failures:
        if failure.caused_by is not None:
            dependents.setdefault(failure.caused_by, []).append(failure.label)
    lines = []
    for failure in failures:
        if failure.caused_by is not None:
            continue
        labels = dependents.get(failure.label, [])
        n = len(labels)
        tail = f" (and {n} check{'s' if n != 1 else ''} that depend{'' if n != 1 else 's'} on it: {', '.join(labels)})"
        lines.append(failure.line() + (tail if labels else ""))
    return lines


def quote(text: str) -> str:
    """A string as the gate shows it: double-quoted, escapes visible, Unicode kept; a long
    one cut to a readable prefix and its length."""
    return shown(text, json_quote)


def listing(examples: list[str], total: int) -> str:
    """'a, b, c' plus how many more there are than the examples shown."""
    more = total - len(examples)
    return ", ".join(examples) + (f" and {more} more" if more > 0 else "")
