"""The gate's value rules are one list (distressbench.gate.rules) that the checks run and the
contract's docs state: the docs' generated section is that list, and every rule is a real
GX expectation or a probe over a view the gate derives."""

from __future__ import annotations

from pathlib import Path

from distressbench import settings
from distressbench.gate import rules, views

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
    for table, label, sentence in rules.statements():
        assert f"(`{label}`)" in section, label
        assert label.split()[1].startswith(f"{table}."), label
        assert sentence and sentence == sentence.strip() and not sentence.endswith("."), label


def test_a_sentence_s_markdown_characters_are_escaped_outside_code_spans() -> None:
    assert rules._escape("a `b_c` d_e *f* [g] | h") == "a `b_c` d\\_e \\*f\\* \\[g\\] \\| h"


def test_every_frame_and_probe_reads_what_the_gate_derives() -> None:
    derived = {view.name for view in views.DERIVED + views.LABEL_VIEWS} | {"label_samples", "label_dups"}
    for probe in rules.PROBES:
        assert probe.source in derived | set(probe.needs), probe
        assert set(probe.needs) <= set(views.RAW_VIEWS), probe
    for frame in rules.FRAMES:
        assert set(frame.needs) <= set(views.RAW_VIEWS), frame.name
        assert frame.rules and all(r.expectation.startswith("Expect") for r in frame.rules), frame.name
