"""`distressbench show`: the conversation, a reply and its rubric, from the marts, safe to print."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import duckdb
import pytest

from distressbench import cli
from distressbench.messages import display_width, one_line, printable
from distressbench.outputs.show import wrap
from fixtures.hostile_warehouse import ANSI, BIDI, SCRIPT, WIDE
from fixtures.releases.hand_built import CLINICIAN_ID, MODEL_IDS, TASK_IDS

WIDTH = 80


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(["show", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _assert_terminal_safe(text: str) -> None:
    for line in text.split("\n"):
        assert display_width(line) <= WIDTH, line
        for ch in line:
            assert unicodedata.category(ch) not in ("Cc", "Zl", "Zp") or ch == "\n", repr(line)
            assert ch not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", repr(line)


def _words(text: str) -> str:
    """The text without white space: wrapping may break a line anywhere in a run of wide characters."""
    return "".join(text.split())


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_show_prints_a_reply_and_its_rubric_from_the_marts(
    hostile_warehouse: Path, capsys: pytest.CaptureFixture[str], task_id: str
) -> None:
    model_id = MODEL_IDS[TASK_IDS.index(task_id) % len(MODEL_IDS)]
    code, out, err = _run(capsys, task_id, "--model", model_id, "--warehouse", str(hostile_warehouse))
    assert (code, err) == (0, "")
    _assert_terminal_safe(out)
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        subcategory, turn_type, text, weight_met, weight_total, score = connection.execute(
            "select subcategory, turn_type, response_text, weight_met, weight_total, score from marts.cases"
            " where task_id = ? and model_id = ?",
            [task_id, model_id],
        ).fetchone()
        turns = connection.execute(
            "select turn_text from marts.conversation_turns where task_id = ? order by turn_index", [task_id]
        ).fetchall()
        verdicts = connection.execute(
            "select v.criterion_id, v.dimension, v.weight, v.n_met, v.n_labels, v.is_met, p.criterion_text"
            " from marts.verdicts as v inner join marts.criterion_pass_rates as p on v.criterion_id = p.criterion_id"
            " where v.task_id = ? and v.model_id = ?",
            [task_id, model_id],
        ).fetchall()
    assert out.startswith(f"Task {one_line(task_id)}\n")
    assert f"subcategory {subcategory} · turn type {turn_type}" in out
    flat = _words(out)
    for (turn_text,) in turns:  # every turn whole (wrapping only moves white space)
        assert _words(printable(turn_text)) in flat
    assert _words(printable(text)) in flat or text == ""
    line = r"^(\S.*) · (\w+) · weight (\d+) · votes (\d+) met of (\d+) labels · (MET|NOT MET)$"
    printed = re.findall(line, out, re.M)
    assert sorted(printed) == sorted(
        (one_line(c), d, str(w), str(m), str(n), "MET" if met else "NOT MET") for c, d, w, m, n, met, _ in verdicts
    )
    for *_, criterion_text in verdicts:
        assert _words(printable(criterion_text)) in flat
    assert out.rstrip("\n").splitlines()[-1].startswith(f"Weighted score: {weight_met} of {weight_total} = {score:.3f}")


def test_show_escapes_control_characters_and_wraps_wide_text(
    hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, TASK_IDS[0], "--model", MODEL_IDS[0], "--warehouse", str(hostile_warehouse))
    assert code == 0
    assert "\x1b" not in out and "\\x1b[31mred\\x1b[0m" in out  # ANSI shown, not obeyed
    assert SCRIPT in out  # a terminal is not a browser: markup is text, shown as it is
    assert ANSI not in out and BIDI not in out
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        (task_id,) = connection.execute(
            "select min(task_id) from marts.conversation_turns where starts_with(turn_text, ?)", [WIDE]
        ).fetchone()
    code, out, _ = _run(capsys, task_id, "--warehouse", str(hostile_warehouse))
    assert code == 0
    _assert_terminal_safe(out)
    wide_lines = [line for line in out.splitlines() if "我很难过" in line]
    assert len(wide_lines) >= 3 and max(display_width(line) for line in wide_lines) > 70  # wrapped, and used
    assert "".join(line.strip() for line in wide_lines).startswith(WIDE)


def test_show_without_a_model_lists_every_cell_score_sorted(
    hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task_id = TASK_IDS[3]  # "T-4'); DROP TABLE tasks; --"
    code, out, err = _run(capsys, task_id, "--warehouse", str(hostile_warehouse))
    assert (code, err) == (0, "")
    _assert_terminal_safe(out)
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        expected = connection.execute(
            "select model_id, score from marts.cases where task_id = ? order by score desc, model_id", [task_id]
        ).fetchall()
        rubric = connection.execute(
            "select criterion_id, n_models_met, n_models from marts.criterion_pass_rates where task_id = ?", [task_id]
        ).fetchall()
        (n_cells,) = connection.execute(
            "select count(*) from marts.cell_scores where task_id = ?", [task_id]
        ).fetchone()
    assert n_cells == len(expected) == len(MODEL_IDS) + 1
    # the heading counts the ranked models and names the reference apart
    assert f"Cell scores of the {len(MODEL_IDS)} models and the clinician reference, best first" in out
    listed = re.findall(r"^\s*(\d\.\d{3})\s+\d+ of \d+\s+(.+?)( \(clinician reference, not ranked\))?$", out, re.M)
    assert [(m, float(s)) for s, m, _ in listed] == [(one_line(m), round(s, 3)) for m, s in expected]
    assert [m for _, m, ref in listed if ref] == [CLINICIAN_ID]
    line = r"^(\S.*) · \w+ · weight \d+ · met by (\d+) of (\d+) models · reference: (?:met|not met)$"
    printed = re.findall(line, out, re.M)
    assert sorted(printed) == sorted((one_line(c), str(m), str(n)) for c, m, n in rubric)


def test_show_names_the_nearest_ids_for_an_unknown_one(
    hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "T-4'); DROP TABLE task; --", "--warehouse", str(hostile_warehouse))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("show: no task ")
    assert repr(TASK_IDS[3]) in err.split("nearest:")[1].split(",")[0]  # the closest id comes first
    code, _, err = _run(capsys, TASK_IDS[0], "--model", "model-'b'", "--warehouse", str(hostile_warehouse))
    assert code == 1 and err.startswith("show: no model ") and repr(MODEL_IDS[0]) in err
    code, _, err = _run(capsys, "x\n\x1b[2J", "--warehouse", str(hostile_warehouse))  # hostile input, echoed safely
    assert code == 1 and err.count("\n") == 1 and "\x1b" not in err


def test_show_without_a_warehouse_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "T-6", "--warehouse", str(tmp_path / "none.duckdb"))
    assert code == 2 and out == "" and err.startswith("show: no warehouse at ")
    duckdb.connect(str(tmp_path / "empty.duckdb")).close()  # a DuckDB file, but no warehouse
    code, out, err = _run(capsys, "T-6", "--warehouse", str(tmp_path / "empty.duckdb"))
    assert code == 2 and out == "" and err.count("\n") == 1 and err.rstrip().endswith("not a published warehouse")
    with duckdb.connect(str(tmp_path / "old.duckdb")) as connection:  # a warehouse without the drill-down marts
        connection.execute("create schema marts")
    code, out, err = _run(capsys, "T-6", "--warehouse", str(tmp_path / "old.duckdb"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "cannot read the drill-down marts" in err
    assert "Did you mean" in err, err  # DuckDB's hint (its second line), kept on the one line


def test_printable_and_wrap() -> None:
    assert printable("a\r\nb\u2028c\td\x1b[0m\u202e\x00 e\u00a0f\u200d") == "a\nb\nc    d\\x1b[0m\\u202e\\x00 e f\u200d"
    assert printable(None) == ""
    assert one_line("a\nb") == "a\\nb"
    lines = wrap("word " * 40 + "\n\n" + "字" * 100, indent="    ")
    assert all(display_width(line) <= WIDTH for line in lines) and "" in lines
    assert all(line.startswith("    ") for line in lines if line)
    assert "".join(line.strip() for line in lines if "字" in line) == "字" * 100
