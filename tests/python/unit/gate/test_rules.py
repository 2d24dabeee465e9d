"""The contract's value rules are one list (gate/rules.yml, read by distressbench.gate.rules)
that the gate's checks run, submit's checks run and the contract's docs state: the docs'
generated section is that list, every rule is a real GX expectation or a probe over a view
the gate derives, and each rule's plain query (what submit runs) finds its offenders."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from distressbench import settings
from distressbench.gate import rules, views
from fixtures.releases.hand_built import build_tables, criterion_id, response_id

DOCS = settings.PROJECT_ROOT / "docs" / "release-contract.md"


def _docs_section(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    start, end = text.index(rules.DOCS_START), text.index(rules.DOCS_END) + len(rules.DOCS_END)
    return text[start:end]


def test_the_contract_docs_list_exactly_the_gate_s_value_rules() -> None:
    assert _docs_section(DOCS) == rules.markdown(), (
        "docs/release-contract.md's value rules differ from gate/rules.py; "
        "replace its generated section with the output of `python -m distressbench.gate.rules`"
    )


def test_the_docs_name_every_check_once_with_its_sentence() -> None:
    section = _docs_section(DOCS)
    labels = [label for _, label, _ in rules.statements()]
    assert len(labels) == len(set(labels)) == 73
    assert labels == [rule.label for rule in rules.RULES]
    in_the_gate = [r.label for f in rules.FRAMES for r in f.rules] + [p.label for p in rules.PROBES]
    assert sorted(in_the_gate) == sorted(labels)
    for table, label, sentence in rules.statements():
        assert f"(`{label}`)" in section, label
        assert label.split()[1].startswith(f"{table}."), label
        assert sentence and sentence == sentence.strip() and not sentence.endswith("."), label


def test_a_sentence_s_markdown_characters_are_escaped_outside_code_spans() -> None:
    assert rules._escape("a `b_c` d_e *f* [g] | h") == "a `b_c` d\\_e \\*f\\* \\[g\\] \\| h"


def test_every_frame_and_probe_reads_what_the_gate_derives() -> None:
    derived = {view.name for view in rules.SOURCES + views.LABEL_VIEWS} | {"label_samples", "label_dups"}
    for probe in rules.PROBES:
        assert probe.source in derived | set(probe.needs), probe
        assert set(probe.needs) <= set(views.RAW_VIEWS), probe
    for frame in rules.FRAMES:
        assert set(frame.needs) <= set(views.RAW_VIEWS), frame.name
        assert frame.rules and all(r.expectation.startswith("Expect") for r in frame.rules), frame.name


def _fired(tables: dict[str, pa.Table]) -> set[str]:
    """The rules whose plain query finds an offending row in `tables`."""
    with duckdb.connect() as con:
        for name, table in tables.items():
            con.register(name, table)
        return {
            rule.label
            for rule in rules.RULES
            if rule.sql is not None and con.execute(f"select count(*) from ({rule.sql})").fetchone() != (0,)
        }


def _set(tables: dict[str, pa.Table], table: str, column: str, row: int, value: object) -> None:
    data = tables[table]
    values = data[column].to_pylist()
    values[row] = value
    tables[table] = data.set_column(data.schema.get_field_index(column), column, pa.array(values, data[column].type))


def _drop(tables: dict[str, pa.Table], table: str, row: int) -> None:
    data = tables[table]
    tables[table] = pa.concat_tables([data.slice(0, row), data.slice(row + 1)])


def _drop_pair(tables: dict[str, pa.Table]) -> None:
    labels = tables["judge_labels"]
    pair = pc.and_(
        pc.equal(labels["response_id"], response_id(0, 1)), pc.equal(labels["criterion_id"], criterion_id(1, 0))
    )
    tables["judge_labels"] = labels.filter(pc.invert(pair))


BREAKS: dict[str, tuple[Callable[[dict[str, pa.Table]], None], str]] = {
    "a null model id": (lambda t: _set(t, "models", "model_id", 0, None), "not_null models.model_id"),
    "an unknown kind": (lambda t: _set(t, "models", "kind", 0, "judge"), "known_kind models.kind"),
    "a repeated model id": (
        lambda t: _set(t, "models", "model_id", 1, t["models"]["model_id"][0].as_py()),
        "unique models.model_id",
    ),
    "a repeated reply id": (
        lambda t: _set(t, "responses", "response_id", 1, t["responses"]["response_id"][0].as_py()),
        "unique responses.response_id",
    ),
    "a reply to an unknown task": (
        lambda t: _set(t, "responses", "task_id", 0, "T-unknown"),
        "foreign_key responses.task_id",
    ),
    "a missing reply": (lambda t: _drop(t, "responses", 0), "responses_complete responses.(task_id, model_id)"),
    "a negative sample index": (
        lambda t: _set(t, "judge_labels", "sample_index", 0, -1),
        "sample_index_non_negative judge_labels.sample_index",
    ),
    "a null met label": (lambda t: _set(t, "judge_labels", "met", 0, None), "not_null judge_labels.met"),
    "a label of another task's criterion": (
        lambda t: _set(t, "judge_labels", "criterion_id", 0, criterion_id(5, 0)),
        "same_task judge_labels.criterion_id",
    ),
    "an unlabelled pair": (_drop_pair, "labels_complete judge_labels.(response_id, criterion_id)"),
    "a calibration label of another task's criterion": (
        lambda t: _set(t, "calibration_labels", "criterion_id", 0, criterion_id(5, 0)),
        "same_task calibration_labels.criterion_id",
    ),
    "a calibration label of an unknown criterion": (
        lambda t: _set(t, "calibration_labels", "criterion_id", 0, "C-unknown"),
        "foreign_key calibration_labels.criterion_id",
    ),
    "a weight out of range": (lambda t: _set(t, "criteria", "weight", 0, 21), "weight_range criteria.weight"),
    "a criterion text of white space alone": (
        lambda t: _set(t, "criteria", "text", 0, " \t\n\r\f "),
        "non_empty criteria.text",
    ),
    "a turn of three spaces": (lambda t: _set(t, "turns", "content", 0, "   "), "non_empty turns.content"),
}


def test_no_plain_query_fires_on_a_valid_release() -> None:
    assert _fired(build_tables()) == set()


@pytest.mark.parametrize("case", list(BREAKS))
def test_a_rule_s_plain_query_finds_the_rows_that_break_it(case: str) -> None:
    breaker, label = BREAKS[case]
    tables = build_tables()
    breaker(tables)
    assert label in _fired(tables)
