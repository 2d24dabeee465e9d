"""One cause, one line: a failure caused by another is reported under it, on the cause's
one line (the gate's own runs: tests/python/integration/gate/test_one_cause_gated.py)."""

from __future__ import annotations

from distressbench.gate.results import CheckResult, attribute_causes, problem_lines
from distressbench.gate.rules import AFTER


def _result(check: str, table: str, column: str, *, passed: bool = False) -> CheckResult:
    return CheckResult(check, "values", passed, table, column, 0 if passed else 2, [], "ok" if passed else "bad")


def test_a_failure_is_reported_under_the_first_failed_check_it_comes_after() -> None:
    cause = _result("foreign_key", "responses", "task_id")
    passed = _result("not_null", "responses", "task_id", passed=True)
    pairs = _result("responses_complete", "responses", "(task_id, model_id)")
    labels = _result("labels_complete", "judge_labels", "(response_id, criterion_id)")
    same = _result("same_task", "judge_labels", "criterion_id")
    alone = _result("weight_range", "criteria", "weight")
    after = {
        pairs.label: (passed.label, cause.label),
        same.label: (cause.label,),
        labels.label: (same.label,),  # followed back: same_task comes after the foreign key
    }
    checks = [cause, passed, pairs, labels, same, alone]
    attribute_causes(checks, after)
    assert [c.caused_by for c in checks] == [None, None, cause.label, cause.label, cause.label, None]
    assert problem_lines(c for c in checks if not c.passed) == [
        "FAIL foreign_key responses.task_id: bad (and 3 checks that depend on it: responses_complete "
        "responses.(task_id, model_id), labels_complete judge_labels.(response_id, criterion_id), "
        "same_task judge_labels.criterion_id)",
        "FAIL weight_range criteria.weight: bad",
    ]


def test_one_dependent_is_named_in_the_singular_and_a_passed_cause_explains_nothing() -> None:
    cause, dependent = _result("known_role", "turns", "role"), _result("turns_alternate", "turns", "role")
    attribute_causes([cause, dependent], AFTER)
    assert problem_lines([cause, dependent]) == [
        "FAIL known_role turns.role: bad (and 1 check that depends on it: turns_alternate turns.role)"
    ]
    alone = _result("turns_alternate", "turns", "role")
    attribute_causes([_result("known_role", "turns", "role", passed=True), alone], AFTER)
    assert alone.caused_by is None and problem_lines([alone]) == ["FAIL turns_alternate turns.role: bad"]
