"""rules.yml has a schema: an unknown key, or a name that refers to nothing, is refused by name
when the rules load; each kind's defaults come from one table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml

from distressbench.errors import DistressbenchError
from distressbench.gate import rules
from distressbench.gate.rules import KIND_DEFAULTS, RulesError, load_rules


def _document() -> dict[str, Any]:
    return yaml.safe_load(rules.SOURCE.read_text(encoding="utf-8"))


def _rule(document: dict[str, Any], table: str, check: str, column: str) -> dict[str, Any]:
    return next(r for r in document["tables"][table]["rules"] if r["check"] == check and r.get("column") == column)


def test_the_rules_file_loads_as_it_is() -> None:
    loaded = load_rules(rules.SOURCE.read_text(encoding="utf-8"))
    assert loaded == (rules.FRAMES, rules.SOURCES, rules.PROBES, rules.RULES)


def _misspelt_rule_key(document: dict[str, Any]) -> None:
    _rule(document, "criteria", "weight_range", "weight")["betwen"] = [1, 20]


def _misspelt_table_key(document: dict[str, Any]) -> None:
    document["tables"]["tasks"]["raw_example"] = True


def _misspelt_frame_key(document: dict[str, Any]) -> None:
    document["frames"]["tasks"]["need"] = ["tasks"]


def _misspelt_top_key(document: dict[str, Any]) -> None:
    document["frame"] = {}


def _unknown_frame(document: dict[str, Any]) -> None:
    _rule(document, "criteria", "weight_range", "weight")["frame"] = "criterion"


def _unknown_set(document: dict[str, Any]) -> None:
    _rule(document, "criteria", "known_dimension", "dimension")["in_set"] = "dimension"


def _unknown_source(document: dict[str, Any]) -> None:
    next(r for r in document["tables"]["responses"]["rules"] if r["check"] == "responses_complete")["source"] = "gaps"


def _misspelt_source_key(document: dict[str, Any]) -> None:
    document["sources"]["task_keys"]["materialise"] = True


def _unknown_cause(document: dict[str, Any]) -> None:
    _rule(document, "criteria", "criteria_per_task", "task_id")["after"] = ["foreign_key criteria.task"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            _misspelt_rule_key,
            "rules.yml: a rule of criteria (weight_range) has unknown key betwen; the keys there are absent, ",
        ),
        (_misspelt_table_key, "rules.yml: table tasks has unknown key raw_example; the keys there are key, "),
        (_misspelt_frame_key, "rules.yml: frame tasks has unknown key need; the keys there are key, needs, sql"),
        (_misspelt_top_key, "rules.yml: the document has unknown key frame; the keys there are frames, sources, "),
        (
            _misspelt_source_key,
            "rules.yml: source task_keys has unknown key materialise; the keys there are materialize, needs, sql",
        ),
        (
            _unknown_source,
            "rules.yml: rule responses_complete responses.(task_id, model_id) counts in gaps, which is no source",
        ),
        (
            _unknown_frame,
            "rules.yml: rule weight_range criteria.weight reads frame criterion, which is not defined",
        ),
        (
            _unknown_set,
            "rules.yml: rule known_dimension criteria.dimension names the set dimension, which is not defined",
        ),
        (
            _unknown_cause,
            "rules.yml: rule criteria_per_task criteria.task_id comes after foreign_key criteria.task, "
            "which is no rule",
        ),
    ],
)
def test_a_mistake_in_the_rules_is_refused_by_name(change: Callable[[dict[str, Any]], None], message: str) -> None:
    document = _document()
    change(document)
    with pytest.raises(RulesError) as refused:
        load_rules(yaml.safe_dump(document, allow_unicode=True))
    assert str(refused.value).startswith(message), str(refused.value)
    assert isinstance(refused.value, DistressbenchError)


def test_a_kind_says_its_sentence_problem_and_expectation_from_the_one_table() -> None:
    document = _document()
    record = _rule(document, "turns", "not_null", "role")
    assert record == {"check": "not_null", "column": "role", "frame": "turns"}  # the kind says the rest
    rule = next(r for r in rules.RULES if r.label == "not_null turns.role")
    assert rule.sentence == KIND_DEFAULTS["not_null"]["sentence"].format(column="role") == "`role` is never null"
    assert rule.problem == "with a null role" and rule.with_row
    assert (rule.expectation, rule.args) == ("ExpectColumnValuesToNotBeNull", (("column", "role"),))
    assert rule.sql == "select task_id, turn_index from turns where role is null"


def test_a_non_empty_rule_reads_text_past_its_white_space() -> None:
    rule = next(r for r in rules.RULES if r.label == "non_empty criteria.text")
    assert rule.sql == (
        "select criterion_id from criteria where ltrim(text, concat(chr(32), chr(9), chr(10), chr(12), chr(13))) = ''"
    )
    (frame,) = [f for f in rules.FRAMES if rule in f.rules]
    assert "length(ltrim(text, concat(chr(32), chr(9), chr(10), chr(12), chr(13)))) as text_length" in frame.sql
