"""Tests for the release gate (distressbench.gate.run): a valid release passes, and every kind
of contract breach fails with exit code 1 and a line naming the check, the table and
column, and the offending key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from distressbench import cli
from distressbench.gate.command import gate
from distressbench.gate.run import quote
from distressbench.release import contract
from distressbench.settings import Settings
from fixtures.gate_runs import GateRun, assert_fails, fail_lines, frame, printed, run
from fixtures.releases.hand_built import (
    CLINICIAN_ID,
    JUDGES,
    MODEL_IDS,
    TASK_IDS,
    criterion_id,
    make_release,
    response_id,
)
from fixtures.releases.writer import edit_manifest, read_table, refresh_manifest, rewrite_table

T1, T2, T3, T4, T5, T6 = TASK_IDS


# --------------------------------------------------------------------------------------
# helpers


def run_command(release: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`distressbench gate` itself (its own dbt process)."""
    code = cli.main(["gate", str(release)])
    return code, printed(capsys)


def put(release: Path, table: str, data: pd.DataFrame) -> None:
    """Write a pandas frame back as the table, with the contract's Arrow schema."""
    rewrite_table(release, table, pa.Table.from_pandas(data, schema=contract.SCHEMAS[table], preserve_index=False))


def set_null(release: Path, table: str, column: str, rows: tuple[int, ...]) -> list[dict]:
    """Null the column at those file rows, in Arrow (the column keeps its type); the rows as
    they were."""
    data = read_table(release, table)
    mask = pa.array([j in rows for j in range(data.num_rows)])
    nulls = pc.if_else(mask, pa.scalar(None, data.schema.field(column).type), data[column])
    rewrite_table(release, table, data.set_column(data.schema.get_field_index(column), column, nulls))
    return [data.slice(j, 1).to_pylist()[0] for j in rows]


def edit(release: Path, table: str, change: Callable[[pd.DataFrame], pd.DataFrame]) -> None:
    put(release, table, change(frame(release, table)).reset_index(drop=True))


def set_cell(data: pd.DataFrame, where: pd.Series, column: str, value: object) -> pd.DataFrame:
    data = data.copy()
    data.loc[where, column] = value
    return data


def drop_criterion(release: Path, cid: str) -> None:
    """Remove a criterion with every label on it."""
    edit(release, "criteria", lambda d: d[d.criterion_id != cid])
    edit(release, "judge_labels", lambda d: d[d.criterion_id != cid])
    edit(release, "calibration_labels", lambda d: d[d.criterion_id != cid])


def add_criteria(release: Path, task: int, n: int) -> None:
    """Give a task n more (validly labelled) criteria."""
    new_ids = [f"extra-{task}-{i}" for i in range(n)]
    criteria = frame(release, "criteria")
    extra = pd.DataFrame(
        {
            "criterion_id": new_ids,
            "task_id": TASK_IDS[task],
            "dimension": "validation",
            "weight": 3,
            "text": "The reply stays with the person.",
        }
    )
    put(release, "criteria", pd.concat([criteria, extra], ignore_index=True))
    replies = [response_id(m, task) for m in range(len(MODEL_IDS) + 1)]
    labels = pd.DataFrame(
        [
            {"response_id": r, "criterion_id": c, "judge_id": "judge-a", "sample_index": 0, "met": True}
            for r in replies
            for c in new_ids
        ]
    )
    put(release, "judge_labels", pd.concat([frame(release, "judge_labels"), labels], ignore_index=True))


# --------------------------------------------------------------------------------------
# the valid release, usage, report


def test_good_release_passes(good_release: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_command(good_release, capsys)
    assert code == 0, out
    assert "FAIL" not in out and "SKIP" not in out
    assert "PASS labels_complete judge_labels.(response_id, criterion_id)" in out
    assert "PASS criteria_per_task criteria.task_id" in out
    assert out.strip().splitlines()[-1].startswith("gate PASSED")


def test_good_release_without_annex_passes(good_release: Path, gate_run: GateRun) -> None:
    (good_release / "redteam_transcripts.parquet").unlink()
    refresh_manifest(good_release)
    code, out = run(good_release, gate_run)
    assert code == 0, out
    assert "redteam_transcripts" not in out and "SKIP" not in out


def test_folder_name_with_glob_characters(tmp_path: Path, gate_run: GateRun) -> None:
    # "rel*" must not also read the files of its neighbour "rel-b"
    release = make_release(tmp_path / "rel*")
    make_release(tmp_path / "rel-b")
    code, out = run(release, gate_run)
    assert code == 0, out


def test_json_report(good_release: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(good_release, "criteria", lambda d: set_cell(d, d.criterion_id == criterion_id(1, 2), "weight", 21))
    report_path = tmp_path / "out" / "gate.json"
    assert cli.main(["gate", str(good_release), "--report", str(report_path)]) == 1
    shown = fail_lines(printed(capsys))
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["passed"] is False
    assert report["release_id"] == "fixture-1"
    assert report["n_failed"] == 1 == len(shown)
    assert report["n_checks"] == len(report["checks"]) > 100
    (failed,) = [c for c in report["checks"] if not c["passed"]]
    assert failed == {
        "check": "weight_range",
        "stage": "values",
        "passed": False,
        "table": "criteria",
        "column": "weight",
        "n_failed": 1,
        "examples": [f"{quote(criterion_id(1, 2))} (21)"],
        "message": failed["message"],
        "caused_by": None,
        "label": "weight_range criteria.weight",
    }
    assert failed["message"] in shown["weight_range criteria.weight"]
    stages = {c["stage"] for c in report["checks"]}
    assert stages == {"manifest", "schema", "values"}


def test_run_gate_returns_the_report_quietly(good_release: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = gate(good_release, None, Settings(), echo=False)
    assert report.passed and report.failures == []
    assert capsys.readouterr().out == ""
    assert report.to_json()["n_failed"] == 0


# --------------------------------------------------------------------------------------
# manifest and files


def test_missing_file(good_release: Path, gate_run: GateRun) -> None:
    (good_release / "calibration_labels.parquet").unlink()
    line = assert_fails(
        good_release, gate_run, "files_present calibration_labels", '"calibration_labels.parquet" (required)'
    )
    assert "1 table file is missing" in line
    _, out = run(good_release, gate_run)
    # the value checks wait for a release whose files and schemas pass
    assert "SKIP value checks: they read the release once its manifest, files and schemas pass" in out


def test_empty_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "gate.json"
    assert cli.main(["gate", str(tmp_path), "--report", str(report)]) == 1
    failed = fail_lines(printed(capsys))
    assert set(failed) == {
        "manifest_json",
        "files_present tasks, turns, criteria, models, responses, judge_labels, calibration_labels",
    }
    skipped = json.loads(report.read_text(encoding="utf-8"))["skipped"]
    assert any("weight_range criteria.weight" in entry for entry in skipped)


def test_truncated_parquet(good_release: Path, gate_run: GateRun) -> None:
    path = good_release / "judge_labels.parquet"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    code, out = run(good_release, gate_run)
    failed = fail_lines(out)
    assert code == 1
    assert set(failed) == {"parquet_readable judge_labels", "file_sha256 judge_labels"}, out
    assert "judge_labels.parquet is not a readable Parquet file" in failed["parquet_readable judge_labels"]
    assert "SKIP file_rows judge_labels" in out
    # the value checks wait for a release whose files and schemas pass
    assert "SKIP value checks: they read the release once its manifest, files and schemas pass" in out


def test_corrupt_data_pages(good_release: Path, gate_run: GateRun) -> None:
    # the footer (and so the schema and row count) still reads; the data pages do not
    path = good_release / "judge_labels.parquet"
    data = bytearray(path.read_bytes())
    data[200:1200] = b"\xab" * 1000
    path.write_bytes(bytes(data))
    refresh_manifest(good_release)
    code, out = run(good_release, gate_run)
    failed = fail_lines(out)
    assert code == 1
    # one cause, one line: the checks that could not read the labels are named on it
    assert set(failed) == {"readable judge_labels.*"}, out
    line = failed["readable judge_labels.*"]
    assert "not_null judge_labels.met" in line and "labels_complete judge_labels.(response_id, criterion_id)" in line
    report = gate_run.shared(good_release, echo=False)
    dependents = [c for c in report.failures if c.caused_by == "readable judge_labels.*"]
    assert dependents and all(c.table == "judge_labels" for c in dependents)
    (met,) = [c for c in dependents if c.label == "not_null judge_labels.met"]
    assert "could not be evaluated: reading judge_labels.parquet failed" in met.message
    assert "PASS weight_range criteria.weight" in out


def test_corrupt_page_in_a_column_no_value_check_reads(good_release: Path, gate_run: GateRun) -> None:
    """responses.content feeds no value check, but the gate reads and decodes every page of
    every column: a corrupt page there is refused by name, not left to fail later in dbt."""
    path = good_release / "responses.parquet"
    column = read_table(good_release, "responses").schema.get_field_index("content")
    offset = pq.ParquetFile(path).metadata.row_group(0).column(column).data_page_offset
    data = bytearray(path.read_bytes())
    data[offset : offset + 64] = b"\xab" * 64
    path.write_bytes(bytes(data))
    refresh_manifest(good_release)
    code, out = run(good_release, gate_run)
    failed = fail_lines(out)
    assert code == 1
    assert "responses.parquet cannot be read in full" in failed["readable responses.*"], out
    assert "PASS readable criteria.*" in out and "PASS weight_range criteria.weight" in out


def test_invalid_utf8_in_a_reply(good_release: Path, gate_run: GateRun) -> None:
    responses = read_table(good_release, "responses")
    column = responses.schema.get_field_index("content")
    content = responses["content"].combine_chunks()
    validity, offsets, text = content.buffers()
    broken = bytes(text).replace(b"e", b"\xff", 1)  # one byte that is no UTF-8
    bad = pa.Array.from_buffers(pa.string(), len(content), [validity, offsets, pa.py_buffer(broken)])
    rewrite_table(good_release, "responses", responses.set_column(column, "content", bad))
    code, out = run(good_release, gate_run)
    failed = fail_lines(out)
    assert code == 1
    line = failed["readable responses.*"]
    assert "responses.parquet cannot be read in full" in line and "UTF8" in line, line
    assert all("responses" in label or "could not be evaluated" in failed[label] for label in failed), out


def test_a_release_without_tasks(good_release: Path, gate_run: GateRun) -> None:
    for table in ("tasks", "turns", "criteria", "responses", "judge_labels", "calibration_labels"):
        rewrite_table(good_release, table, read_table(good_release, table).slice(0, 0))
    assert_fails(
        good_release,
        gate_run,
        "has_tasks tasks.task_id",
        "the release has no task",
        "the contract wants at least one task",
    )


def test_a_release_without_a_ranked_model(good_release: Path, gate_run: GateRun) -> None:
    """Only the clinician reference replies: nothing to rank (the bootstrap would crash)."""
    keep = {"models": "model_id", "responses": "model_id", "redteam_transcripts": "model_id"}
    for table, column in keep.items():
        data = read_table(good_release, table)
        rewrite_table(good_release, table, data.filter(pc.equal(data[column], CLINICIAN_ID)))
    replies = pa.array([response_id(len(MODEL_IDS), t) for t in range(len(TASK_IDS))])
    for table in ("judge_labels", "calibration_labels"):
        data = read_table(good_release, table)
        rewrite_table(good_release, table, data.filter(pc.is_in(data["response_id"], replies)))
    assert_fails(
        good_release,
        gate_run,
        "has_ranked_model models.kind",
        "the release has no model of kind 'model'",
        "at least one ranked model",
    )


# --------------------------------------------------------------------------------------
# columns and types


def test_null_weight(good_release: Path, gate_run: GateRun) -> None:
    target = criterion_id(4, 2)
    row = read_table(good_release, "criteria")["criterion_id"].to_pylist().index(target)
    set_null(good_release, "criteria", "weight", (row,))
    assert_fails(
        good_release, gate_run, "not_null criteria.weight", "1 row with a null weight", f"{quote(target)} (row {row})"
    )


# --------------------------------------------------------------------------------------
# rubric


@pytest.mark.parametrize("weight", [0, 21, -3])
def test_weight_out_of_range(good_release: Path, gate_run: GateRun, weight: int) -> None:
    target = criterion_id(1, 2)
    edit(good_release, "criteria", lambda d: set_cell(d, d.criterion_id == target, "weight", weight))
    assert_fails(
        good_release,
        gate_run,
        "weight_range criteria.weight",
        "1 criterion with a weight outside 1..20",
        f"{quote(target)} ({weight})",
    )


def test_task_with_five_criteria(good_release: Path, gate_run: GateRun) -> None:
    drop_criterion(good_release, criterion_id(0, 5))  # task 1 has 6
    assert_fails(
        good_release,
        gate_run,
        "criteria_per_task criteria.task_id",
        "1 task with fewer than 6 or more than 20 criteria",
        f"{quote(T1)} (5)",
    )


def test_task_with_twenty_one_criteria(good_release: Path, gate_run: GateRun) -> None:
    add_criteria(good_release, 1, 14)  # task 2 has 7
    assert_fails(good_release, gate_run, "criteria_per_task criteria.task_id", f"{quote(T2)} (21)")


def test_task_with_twenty_criteria_passes(good_release: Path, gate_run: GateRun) -> None:
    add_criteria(good_release, 1, 13)
    code, out = run(good_release, gate_run)
    assert code == 0, out


def test_task_without_criteria(good_release: Path, gate_run: GateRun) -> None:
    for k in range(7):  # task 6 has 7
        drop_criterion(good_release, criterion_id(5, k))
    assert_fails(good_release, gate_run, "criteria_per_task criteria.task_id", f"{quote(T6)} (0)")


# --------------------------------------------------------------------------------------
# keys


def _duplicate_row(where: Callable[[pd.DataFrame], pd.Series]) -> Callable[[pd.DataFrame], pd.DataFrame]:
    return lambda d: pd.concat([d, d[where(d)]], ignore_index=True)


@pytest.mark.parametrize(
    ("table", "where", "label", "named"),
    [
        ("tasks", lambda d: d.task_id == T1, "unique tasks.task_id", quote(T1)),
        (
            "turns",
            lambda d: (d.task_id == T4) & (d.turn_index == 1),
            "unique turns.(task_id, turn_index)",
            f"({quote(T4)}, 1)",
        ),
        (
            "criteria",
            lambda d: d.criterion_id == criterion_id(2, 0),
            "unique criteria.criterion_id",
            quote(criterion_id(2, 0)),
        ),
        ("models", lambda d: d.model_id == MODEL_IDS[1], "unique models.model_id", quote(MODEL_IDS[1])),
        (
            "judge_labels",
            lambda d: (
                (d.response_id == response_id(0, 0))
                & (d.criterion_id == criterion_id(0, 0))
                & (d.judge_id == "judge-a")
            ),
            "unique judge_labels.(response_id, criterion_id, judge_id, sample_index)",
            f'({quote(response_id(0, 0))}, {quote(criterion_id(0, 0))}, "judge-a", 0) (2)',
        ),
        (
            "calibration_labels",
            lambda d: (
                (d.response_id == response_id(2, 0))
                & (d.annotator_id == "ann-3")
                & (d.criterion_id == criterion_id(0, 1))
            ),
            "unique calibration_labels.(response_id, criterion_id, annotator_id)",
            f'({quote(response_id(2, 0))}, {quote(criterion_id(0, 1))}, "ann-3") (2)',
        ),
        (
            "redteam_transcripts",
            lambda d: (d.transcript_id == "RT-2;") & (d.turn_index == 2),
            "unique redteam_transcripts.(transcript_id, turn_index)",
            '("RT-2;", 2)',
        ),
    ],
)
def test_duplicate_key(
    good_release: Path,
    gate_run: GateRun,
    table: str,
    where: Callable[[pd.DataFrame], pd.Series],
    label: str,
    named: str,
) -> None:
    edit(good_release, table, _duplicate_row(where))
    line = assert_fails(good_release, gate_run, label, named)
    assert line.endswith(named)  # one key, shown once: no "and more"
    if table == "judge_labels":  # counted as surplus rows
        assert ": 1 row repeating the (response_id, criterion_id, judge_id, sample_index) of another row" in line
    else:
        assert ": 2 rows sharing a" in line


def test_duplicate_label_with_wide_sample_indexes(good_release: Path, gate_run: GateRun) -> None:
    # sample_index 99 leaves the per-pair slot mask too narrow: the exact full-key aggregate runs
    reply, crit = response_id(2, 3), criterion_id(3, 2)
    pair = lambda d: (d.response_id == reply) & (d.criterion_id == crit) & (d.judge_id == "judge-a")  # noqa: E731
    edit(
        good_release,
        "judge_labels",
        lambda d: pd.concat(
            [
                set_cell(d, pair(d) & (d.sample_index == 0), "sample_index", 99),
                d[pair(d) & (d.sample_index == 0)].assign(sample_index=99),
            ],
            ignore_index=True,
        ),
    )
    assert_fails(
        good_release,
        gate_run,
        "unique judge_labels.(response_id, criterion_id, judge_id, sample_index)",
        f'({quote(reply)}, {quote(crit)}, "judge-a", 99) (2)',
    )


def test_duplicate_response_id(good_release: Path, gate_run: GateRun) -> None:
    # a second reply of model 2 to task 1 that reuses the id of its reply to task 2
    target = response_id(1, 1)
    edit(
        good_release,
        "responses",
        lambda d: pd.concat([d, d[d.response_id == response_id(1, 0)].assign(response_id=target)], ignore_index=True),
    )
    assert_fails(
        good_release,
        gate_run,
        "unique responses.response_id",
        f"{quote(target)} (2)",
        also={"unique responses.(task_id, model_id)"},
    )


def test_duplicate_reply(good_release: Path, gate_run: GateRun) -> None:
    # a second, fully labelled reply of model 3 to task 5
    original, extra = response_id(2, 4), "R-second-reply"
    edit(
        good_release,
        "responses",
        lambda d: pd.concat([d, d[d.response_id == original].assign(response_id=extra)], ignore_index=True),
    )
    edit(
        good_release,
        "judge_labels",
        lambda d: pd.concat([d, d[d.response_id == original].assign(response_id=extra)], ignore_index=True),
    )
    assert_fails(
        good_release,
        gate_run,
        "unique responses.(task_id, model_id)",
        "2 replies to a (task, model) pair that has more than one reply",
        f"({quote(T5)}, {quote(MODEL_IDS[2])}) (2)",
    )


GHOST = "T-ghost'; --"


# --------------------------------------------------------------------------------------
# references


@pytest.mark.parametrize(
    ("table", "row", "label", "named"),
    [
        (
            "turns",
            {"task_id": GHOST, "turn_index": 0, "role": "user", "content": "hello"},
            "foreign_key turns.task_id",
            f"({quote(GHOST)}, 0)",
        ),
        (
            "criteria",
            {"criterion_id": "C-ghost", "task_id": GHOST, "dimension": "routing", "weight": 2, "text": "Routes."},
            "foreign_key criteria.task_id",
            f'"C-ghost" ({quote(GHOST)})',
        ),
        (
            "responses",
            {"response_id": "R-ghost", "task_id": GHOST, "model_id": MODEL_IDS[0], "content": "hi"},
            "foreign_key responses.task_id",
            f'"R-ghost" ({quote(GHOST)})',
        ),
        (
            "responses",
            {"response_id": "R-nobody", "task_id": T1, "model_id": "nobody", "content": "hi"},
            "foreign_key responses.model_id",
            '"R-nobody" ("nobody")',
        ),
        (
            "judge_labels",
            {
                "response_id": "R-ghost",
                "criterion_id": criterion_id(0, 0),
                "judge_id": "judge-a",
                "sample_index": 0,
                "met": True,
            },
            "foreign_key judge_labels.response_id",
            f'("R-ghost", {quote(criterion_id(0, 0))}) (1)',
        ),
        (
            "judge_labels",
            {
                "response_id": response_id(0, 0),
                "criterion_id": "C-ghost",
                "judge_id": "judge-a",
                "sample_index": 0,
                "met": True,
            },
            "foreign_key judge_labels.criterion_id",
            f'({quote(response_id(0, 0))}, "C-ghost") (1)',
        ),
        (
            "calibration_labels",
            {"response_id": "R-ghost", "criterion_id": criterion_id(0, 0), "annotator_id": "ann-1", "met": True},
            "foreign_key calibration_labels.response_id",
            f'("R-ghost", {quote(criterion_id(0, 0))}, "ann-1")',
        ),
        (
            "calibration_labels",
            {"response_id": response_id(0, 0), "criterion_id": "C-ghost", "annotator_id": "ann-1", "met": True},
            "foreign_key calibration_labels.criterion_id",
            f'({quote(response_id(0, 0))}, "C-ghost", "ann-1")',
        ),
    ],
)
def test_dangling_reference(
    good_release: Path, gate_run: GateRun, table: str, row: dict[str, object], label: str, named: str
) -> None:
    edit(good_release, table, lambda d: pd.concat([d, pd.DataFrame([row])], ignore_index=True))
    # a reply to task 1 (by an unknown model) is also a reply without judge labels
    also = {"labels_complete judge_labels.(response_id, criterion_id)"} if row.get("model_id") == "nobody" else set()
    assert_fails(good_release, gate_run, label, named, also=also)


def test_task_without_turns(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "turns", lambda d: d[d.task_id != T3])
    assert_fails(good_release, gate_run, "task_has_turns turns.task_id", "1 task without any turn", quote(T3))


@pytest.mark.parametrize("table", ["judge_labels", "calibration_labels"])
def test_label_on_criterion_of_another_task(good_release: Path, gate_run: GateRun, table: str) -> None:
    reply, own, foreign = response_id(0, 0), criterion_id(0, 1), criterion_id(1, 1)
    edit(
        good_release,
        table,
        lambda d: set_cell(
            d,
            (d.response_id == reply)
            & (d.criterion_id == own)
            & (d.index == d[(d.response_id == reply) & (d.criterion_id == own)].index[0]),
            "criterion_id",
            foreign,
        ),
    )
    line = assert_fails(
        good_release,
        gate_run,
        f"same_task {table}.criterion_id",
        "on a criterion of another task",
        quote(reply),
        quote(foreign),
        quote(T2),
        quote(T1),
    )
    assert line.count(quote(foreign)) == 1


# --------------------------------------------------------------------------------------
# completeness


def test_missing_reply(good_release: Path, gate_run: GateRun) -> None:
    gone = response_id(1, 2)
    for table in ("responses", "judge_labels", "calibration_labels"):
        edit(good_release, table, lambda d: d[d.response_id != gone])
    assert_fails(
        good_release,
        gate_run,
        "responses_complete responses.(task_id, model_id)",
        "1 (model, task) pair without a reply",
        f"({quote(MODEL_IDS[1])}, {quote(T3)})",
    )


def test_missing_labels_for_a_pair(good_release: Path, gate_run: GateRun) -> None:
    reply, crit = response_id(4, 3), criterion_id(3, 4)
    edit(good_release, "judge_labels", lambda d: d[~((d.response_id == reply) & (d.criterion_id == crit))])
    assert_fails(
        good_release,
        gate_run,
        "labels_complete judge_labels.(response_id, criterion_id)",
        "1 (reply, criterion of its task) pair without any judge label",
        f"({quote(reply)}, {quote(crit)})",
    )


def test_missing_labels_beside_a_null_judge_id(good_release: Path, gate_run: GateRun) -> None:
    """One named judge, and a label without a judge_id on another pair: that pair has two
    label groups, which must not stand in for the pair without labels (a null judge_id is
    a judge of its own, as for the verdicts)."""
    reply, crit = response_id(4, 3), criterion_id(3, 4)
    null_reply, null_crit = response_id(2, 1), criterion_id(1, 0)

    def change(d: pd.DataFrame) -> pd.DataFrame:
        d = d[~((d.response_id == reply) & (d.criterion_id == crit))].copy()
        second = d.judge_id == JUDGES[1]
        d.loc[second, "sample_index"] += 10  # the second judge's samples become the first's
        d["judge_id"] = JUDGES[0]
        on_pair = np.flatnonzero((d.response_id == null_reply) & (d.criterion_id == null_crit))
        d.iloc[on_pair[-1], d.columns.get_loc("judge_id")] = None
        return d

    edit(good_release, "judge_labels", change)
    assert_fails(
        good_release,
        gate_run,
        "labels_complete judge_labels.(response_id, criterion_id)",
        "1 (reply, criterion of its task) pair without any judge label",
        f"({quote(reply)}, {quote(crit)})",
        also={"not_null judge_labels.judge_id"},
    )


def test_missing_labels_for_a_whole_reply(good_release: Path, gate_run: GateRun) -> None:
    reply = response_id(len(MODEL_IDS), 4)  # the clinician reference's reply to task 5
    edit(good_release, "judge_labels", lambda d: d[d.response_id != reply])
    line = assert_fails(
        good_release,
        gate_run,
        "labels_complete judge_labels.(response_id, criterion_id)",
        f"({quote(reply)}, {quote(criterion_id(4, 0))})",
    )
    assert line.split(": ")[1].startswith("8 (reply, criterion of its task) pairs")  # task 5 has 8 criteria


# --------------------------------------------------------------------------------------
# values


@pytest.mark.parametrize("table", ["judge_labels", "calibration_labels"])
def test_null_met(good_release: Path, gate_run: GateRun, table: str) -> None:
    row = set_null(good_release, table, "met", (5,))[0]
    assert_fails(
        good_release, gate_run, f"not_null {table}.met", "1 row with a null met", "(row 5)", quote(row["response_id"])
    )


def test_null_sample_index(good_release: Path, gate_run: GateRun) -> None:
    """The one pass does not count these labels: a group holding one has no sample mask, and
    only then are they counted in the raw file."""
    row = set_null(good_release, "judge_labels", "sample_index", (5, 9))[0]
    assert_fails(
        good_release,
        gate_run,
        "not_null judge_labels.sample_index",
        "2 rows with a null sample_index",
        "(row 5)",
        "(row 9)",
        quote(row["response_id"]),
    )


def test_no_clinician_reference(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "models", lambda d: set_cell(d, d.model_id == CLINICIAN_ID, "kind", "model"))
    assert_fails(
        good_release, gate_run, "one_clinician_reference models.kind", "no model has kind 'clinician_reference'"
    )


def test_two_clinician_references(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "models", lambda d: set_cell(d, d.model_id == MODEL_IDS[2], "kind", "clinician_reference"))
    assert_fails(
        good_release,
        gate_run,
        "one_clinician_reference models.kind",
        "2 models have kind 'clinician_reference'",
        quote(MODEL_IDS[2]),
        quote(CLINICIAN_ID),
    )


@pytest.mark.parametrize(
    ("table", "key", "target", "column", "value", "label", "problem"),
    [
        (
            "criteria",
            "criterion_id",
            criterion_id(3, 1),
            "dimension",
            "empathy",
            "known_dimension criteria.dimension",
            "with a dimension that is not one of the 7",
        ),
        (
            "tasks",
            "task_id",
            T4,
            "subcategory",
            "sadness",
            "known_subcategory tasks.subcategory",
            "with a subcategory that is not one of the 23",
        ),
        ("models", "model_id", MODEL_IDS[0], "kind", "human", "known_kind models.kind", "with a kind other than"),
        (
            "tasks",
            "task_id",
            T2,
            "reference_response",
            "",
            "non_empty tasks.reference_response",
            "with an empty reference_response",
        ),
        ("criteria", "criterion_id", criterion_id(5, 6), "text", "", "non_empty criteria.text", "with an empty text"),
    ],
)
def test_bad_value(
    good_release: Path,
    gate_run: GateRun,
    table: str,
    key: str,
    target: str,
    column: str,
    value: str,
    label: str,
    problem: str,
) -> None:
    edit(good_release, table, lambda d: set_cell(d, d[key] == target, column, value))
    line = assert_fails(good_release, gate_run, label, problem, quote(target))
    if value:
        assert f"{quote(target)} ({quote(value)})" in line


def test_empty_turn_content(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "turns", lambda d: set_cell(d, (d.task_id == T2) & (d.turn_index == 1), "content", ""))
    assert_fails(good_release, gate_run, "non_empty turns.content", "1 turn with an empty content", f"({quote(T2)}, 1)")


def test_empty_reply_is_allowed(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "responses", lambda d: set_cell(d, d.response_id == response_id(0, 0), "content", ""))
    code, out = run(good_release, gate_run)
    assert code == 0, out


def test_negative_sample_index(good_release: Path, gate_run: GateRun) -> None:
    reply, crit = response_id(3, 1), criterion_id(1, 0)
    edit(
        good_release,
        "judge_labels",
        lambda d: set_cell(
            d, (d.response_id == reply) & (d.criterion_id == crit) & (d.judge_id == "judge-b'"), "sample_index", -1
        ),
    )
    assert_fails(
        good_release,
        gate_run,
        "sample_index_non_negative judge_labels.sample_index",
        "1 judge label with a negative sample_index",
        f'({quote(reply)}, {quote(crit)}, "judge-b\'", -1)',
    )


# --------------------------------------------------------------------------------------
# turns


def test_turns_with_a_gap(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "turns", lambda d: set_cell(d, (d.task_id == T2) & (d.turn_index == 2), "turn_index", 3))
    assert_fails(
        good_release,
        gate_run,
        "turns_contiguous turns.turn_index",
        "whose turn_index values are not 0, 1, ..., n-1",
        f"{quote(T2)} ([0,1,3])",
    )


def test_turns_not_starting_at_zero(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "turns", lambda d: d.assign(turn_index=d.turn_index + (d.task_id == T1).astype("int32")))
    assert_fails(good_release, gate_run, "turns_contiguous turns.turn_index", f"{quote(T1)} ([1])")


def test_turns_ending_on_assistant(good_release: Path, gate_run: GateRun) -> None:
    extra = {"task_id": T4, "turn_index": 5, "role": "assistant", "content": "I'm here with you."}
    edit(good_release, "turns", lambda d: pd.concat([d, pd.DataFrame([extra])], ignore_index=True))
    assert_fails(
        good_release,
        gate_run,
        "turns_end_with_user turns.role",
        "whose last turn is not a user turn",
        f'{quote(T4)} ("assistant")',
    )


def test_turns_starting_with_assistant_and_not_alternating(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "turns", lambda d: set_cell(d, (d.task_id == T6) & (d.turn_index == 0), "role", "assistant"))
    code, out = run(good_release, gate_run)
    failed = fail_lines(out)
    assert code == 1
    assert set(failed) == {
        "turns_start_with_user turns.role",
        "turns_alternate turns.role",
        "user_turn_count tasks.n_user_turns",
    }
    assert f'{quote(T6)} (["assistant","assistant","user"])' in failed["turns_alternate turns.role"]
    assert f"{quote(T6)} (2, 1)" in failed["user_turn_count tasks.n_user_turns"]


def test_wrong_user_turn_count(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "tasks", lambda d: set_cell(d, d.task_id == T5, "n_user_turns", 2))
    assert_fails(
        good_release,
        gate_run,
        "user_turn_count tasks.n_user_turns",
        "whose n_user_turns differs from its number of user turns",
        f"{quote(T5)} (2, 1)",
    )


def test_zero_user_turns(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "tasks", lambda d: set_cell(d, d.task_id == T3, "n_user_turns", 0))
    # the user turn count that no longer matches is named on the cause's line
    assert_fails(
        good_release,
        gate_run,
        "n_user_turns_positive tasks.n_user_turns",
        f"{quote(T3)} (0)",
        "(and 1 check that depends on it: user_turn_count tasks.n_user_turns)",
    )


def test_unknown_role(good_release: Path, gate_run: GateRun) -> None:
    edit(
        good_release,
        "redteam_transcripts",
        lambda d: set_cell(d, (d.transcript_id == "RT-1'") & (d.turn_index == 3), "role", "system"),
    )
    assert_fails(good_release, gate_run, "known_role redteam_transcripts.role", '("RT-1\'", 3) ("system")')


def test_redteam_gap(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "redteam_transcripts", lambda d: d[~((d.transcript_id == "RT-1'") & (d.turn_index == 1))])
    assert_fails(good_release, gate_run, "turns_contiguous redteam_transcripts.turn_index", '"RT-1\'" ([0,2,3])')


def test_null_key_is_shown_by_row(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "criteria", lambda d: set_cell(d, d.criterion_id == criterion_id(0, 0), "criterion_id", None))
    code, out = run(good_release, gate_run)
    line = fail_lines(out)["not_null criteria.criterion_id"]
    assert "1 row with a null criterion_id; criterion_id (file row): NULL (row 0)" in line
    assert code == 1


def test_many_offenders_are_counted_and_capped(good_release: Path, gate_run: GateRun) -> None:
    edit(good_release, "judge_labels", lambda d: d.assign(sample_index=-1 - d.index.to_series().astype("int32")))
    line = assert_fails(good_release, gate_run, "sample_index_non_negative judge_labels.sample_index")
    n = read_table(good_release, "judge_labels").num_rows
    assert line.split(": ")[1].startswith(f"{n} judge labels with a negative sample_index")
    assert line.endswith(f"and {n - 20} more")


# --------------------------------------------------------------------------------------
# hardening: inputs that crashed, hung or slipped through


def run_within(seconds: int, release: Path) -> tuple[int, str]:
    """The gate in a child process, failing the test instead of hanging when it blocks."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "distressbench.cli", "gate", str(release)],
            capture_output=True,
            text=True,
            timeout=seconds,
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"the gate did not finish within {seconds} s") from error
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("name", ["judge_labels.parquet", "redteam_transcripts.parquet"])
def test_a_fifo_named_like_a_release_file_is_refused_without_opening_it(good_release: Path, name: str) -> None:
    (good_release / name).unlink()
    os.mkfifo(good_release / name)
    code, out = run_within(60, good_release)  # the old gate blocked here, opening the FIFO
    assert code == 1
    assert f'"{name}" (a FIFO)' in fail_lines(out)["regular_files"]


UNDER_PYTHON_C = "import sys; from distressbench.cli import main; sys.exit(main())"


@pytest.mark.parametrize(("command", "done_line"), [("gate", "gate PASSED"), ("build", "published ")])
def test_under_python_c_a_gate_or_build_passes(
    good_release: Path, tmp_path: Path, command: str, done_line: str
) -> None:
    """Under `python -c`, GX's import of pyspark (whose Spark Connect module exits from its
    import when __main__ has no file and grpc is missing) once ended a build with exit code 0,
    having published nothing and said nothing. With pyspark's Connect dependencies installed
    (the spark extra), both run to the end."""
    warehouse = ["--warehouse", str(tmp_path / "w.duckdb")] if command == "build" else []
    done = subprocess.run(
        [sys.executable, "-c", UNDER_PYTHON_C, command, str(good_release), *warehouse],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done_line in done.stdout


def test_under_python_c_with_pyspark_imported_first_the_gate_passes(good_release: Path) -> None:
    """pyspark's Spark Connect module, which GX imports, ends a process from its import when
    __main__ has no file and grpc is missing; the spark extra installs pyspark with its
    Connect dependencies, so a gate under `python -c` runs to its verdict."""
    script = f"import pyspark; {UNDER_PYTHON_C}"
    done = subprocess.run(
        [sys.executable, "-c", script, "gate", str(good_release)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "gate PASSED" in done.stdout


def test_a_fifo_manifest_is_refused_without_opening_it(good_release: Path) -> None:
    (good_release / "manifest.json").unlink()
    os.mkfifo(good_release / "manifest.json")
    code, out = run_within(60, good_release)
    assert code == 1
    assert "manifest.json is a FIFO, not a regular file" in fail_lines(out)["manifest_json"]


@pytest.mark.parametrize("created_at", ["2026-11-01T00:00:00Z", "2026-11-01T00:00:00+02:00", "2026-11-01 08:30:00.123"])
def test_iso_8601_timestamps_pass(good_release: Path, gate_run: GateRun, created_at: str) -> None:
    edit_manifest(good_release, created_at=created_at)
    code, out = run(good_release, gate_run)
    assert code == 0, out


def test_a_release_id_of_more_than_100_characters_is_refused(good_release: Path, gate_run: GateRun) -> None:
    edit_manifest(good_release, release="r" * 101)
    assert_fails(good_release, gate_run, "manifest_release_id manifest.release", "(101 characters)", "at most 100")
    edit_manifest(good_release, release="r" * 100)
    assert run(good_release, gate_run)[0] == 0


def test_a_well_formed_derived_from_passes(good_release: Path, gate_run: GateRun) -> None:
    edit_manifest(good_release, derived_from={"release": "base-1", "manifest_sha256": "a" * 64})
    code, out = run(good_release, gate_run)
    assert code == 0, out
