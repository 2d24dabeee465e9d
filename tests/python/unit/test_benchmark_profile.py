"""The benchmark's profile (scripts/benchmarks/profile.py) on hand-made gate output and dbt
artifacts: each group's seconds and checks, the staging run named, dbt's nodes by kind and tag."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.profile import Line, build_stages, dbt_nodes, gate_groups, reported_stages, stages_of_checks


def test_the_gate_is_cut_into_groups_by_stage_and_gap() -> None:
    lines = [
        Line(1.0, "PASS manifest_json manifest"),  # after 1 s of start-up and reading
        Line(1.01, "PASS file_sha256 tasks"),
        Line(1.02, "PASS schema_types tasks.weight"),
        Line(9.02, "PASS readable tasks"),  # dbt's staging run: 8 s
        Line(9.03, "PASS readable turns"),
        Line(10.03, "FAIL unique tasks.task_id: 1 row ..."),  # a value group: 1 s
        Line(10.04, "PASS not_null tasks.task_id"),
        Line(12.04, "PASS unique turns.(task_id, turn_index)"),  # another group, after a gap: 2 s
        Line(12.5, "gate FAILED: release (1 of 7 checks failed, 12.5 s)"),
        Line(13.0, ""),  # the end
    ]
    stage_of = {
        "manifest_json manifest": "manifest",
        "file_sha256 tasks": "manifest",
        "schema_types tasks.weight": "schema",
        "readable tasks": "values",
        "readable turns": "values",
        "unique tasks.task_id": "values",
        "not_null tasks.task_id": "values",
        "unique turns.(task_id, turn_index)": "values",
    }
    groups = gate_groups(lines, stage_of)
    got = [(g["stage"], g["checks"], round(g["seconds"], 2)) for g in groups]
    assert got == [
        ("start-up and reading", 0, 1.0),
        ("manifest", 2, 0.01),
        ("schema", 1, 0.01),
        ("staging run beside the GX import, then values", 2, 8.01),
        ("values", 2, 1.01),
        ("values", 1, 2.0),
        ("end", 0, 0.96),
    ]
    assert groups[4]["what"] == "not_null, unique"
    assert sum(g["seconds"] for g in groups) == pytest.approx(13.0)


def test_a_gate_that_printed_no_check_is_one_group() -> None:
    assert gate_groups([Line(0.5, "usage: ..."), Line(0.6, "")], {}) == [
        {"stage": "whole gate", "what": "no check line", "checks": 0, "seconds": 0.6}
    ]


def test_the_gate_report_gives_each_check_its_stage_and_any_stage_timings(tmp_path: Path) -> None:
    report = tmp_path / "gate.json"
    report.write_text(
        json.dumps(
            {
                "checks": [{"label": "unique tasks.task_id", "stage": "values"}],
                "stages": {"schemas": 0.25, "staging": 3},
            }
        )
    )
    assert stages_of_checks(report) == {"unique tasks.task_id": "values"}
    assert reported_stages(report) == {"schemas": 0.25, "staging": 3.0}
    report.write_text(json.dumps({"timings": [{"name": "values", "seconds": 1.5}]}))
    assert reported_stages(report) == {"values": 1.5}
    assert reported_stages(tmp_path / "absent.json") == {} == stages_of_checks(tmp_path / "absent.json")


def test_the_build_stages_are_read_from_its_done_lines() -> None:
    lines = ["[gate] checking", "[gate] done in 3.5 s", "noise ] done in 9 s", "[dbt build] done in 12.0 s"]
    assert build_stages(lines) == {"gate": 3.5, "dbt build": 12.0}


def test_dbt_nodes_by_kind_and_data_tests_by_tag(tmp_path: Path) -> None:
    results = [
        ("model.distressbench.a", 2.0),
        ("model.distressbench.b", 1.0),
        ("model.distressbench.c", 4.0),
        ("test.distressbench.unique_a_id.1f2e3d", 0.5),
        ("test.distressbench.not_null_b_id.4a5b6c", 0.25),
        ("seed.distressbench.dimensions", 0.1),
    ]
    (tmp_path / "run_results.json").write_text(
        json.dumps({"results": [{"unique_id": u, "execution_time": s} for u, s in results]})
    )
    nodes = {
        "test.distressbench.unique_a_id.1f2e3d": {"tags": ["model_logic"]},
        "test.distressbench.not_null_b_id.4a5b6c": {"tags": []},
    }
    (tmp_path / "manifest.json").write_text(json.dumps({"nodes": nodes}))
    summary = dbt_nodes(tmp_path)
    assert list(summary) == ["models", "data tests", "seeds"]  # by total seconds
    assert summary["models"] | {"slowest": None} == {"count": 3, "seconds": 7.0, "median": 2.0, "slowest": None}
    assert summary["models"]["slowest"][:2] == [("c", 4.0), ("a", 2.0)]
    assert summary["data tests"]["slowest"] == [("unique_a_id", 0.5), ("not_null_b_id", 0.25)]
    assert summary["data tests"]["by_tag"] == {"(untagged)": (1, 0.25), "model_logic": (1, 0.5)}
