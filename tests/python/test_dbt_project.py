"""Plain `dbt build` from the repo root: every model, data test and unit test passes.

`distressbench build` leaves the unit tests out of the release build (they test the SQL,
not the release's data); this is where they run, and it keeps the README's promise that
plain `dbt build` works.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from distressbench import settings
from distressbench.publish.layout import DBT_TARGET, WarehouseLayout
from distressbench.synth.config import SynthConfig
from distressbench.synth.generate import write_release


def _plain_dbt(release: Path, tmp_path: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """Plain dbt from the repo root on `release`, into tmp_path/dev.duckdb (target and logs
    under tmp_path too)."""
    env = {
        **os.environ,
        "DISTRESSBENCH_RELEASE": str(release),
        "DISTRESSBENCH_BUILD_DB": str(tmp_path / "dev.duckdb"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_USE_COLORS": "false",
        "DBT_TARGET_PATH": str(tmp_path / "target"),
        "DBT_LOG_PATH": str(tmp_path / "logs"),
    }
    dbt = Path(sys.executable).with_name("dbt")
    return subprocess.run([str(dbt), *arguments], cwd=settings.PROJECT_ROOT, env=env, capture_output=True, text=True)


def test_plain_dbt_build_runs_every_test_including_the_unit_tests(tmp_path: Path) -> None:
    release = write_release(tmp_path / "release", SynthConfig(seed=11, n_tasks=40, n_models=4))
    database = tmp_path / "dev.duckdb"
    result = _plain_dbt(release, tmp_path, "build")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]

    run = json.loads((tmp_path / "target" / "run_results.json").read_text(encoding="utf-8"))
    ran = {r["unique_id"].split(".")[0] for r in run["results"]}
    assert {"model", "test", "unit_test", "seed"} <= ran
    # the release's keys are the gate's rules (gate/rules.yml), not restated as staging tests
    tests = [r["unique_id"].split(".")[2] for r in run["results"] if r["unique_id"].startswith("test.")]
    staging = [name for name in tests if "stg_release__" in name]
    assert len(staging) == 1 and staging[0].startswith("accepted_values_stg_release__tasks_turn_type"), staging
    release_invariant = {
        r["unique_id"].split(".")[2]: r["status"]
        for r in run["results"]
        if r["unique_id"].split(".")[2] in ("unique_dimensions_dimension_id", "unique_rpt_corpus_stats_row_order")
    }
    assert release_invariant == {"unique_dimensions_dimension_id": "pass", "unique_rpt_corpus_stats_row_order": "pass"}
    assert all(r["status"] in ("success", "pass", "no-op") for r in run["results"])
    assert "Constraint types are not supported" not in result.stdout + result.stderr
    with duckdb.connect(str(database), read_only=True) as connection:
        (cells,) = connection.execute("select count(*) from marts.cell_scores").fetchone()
        history = connection.execute(
            "select table_name, estimated_size from duckdb_tables() where schema_name = 'history' order by table_name"
        ).fetchall()
    assert cells == 40 * 5  # 4 ranked models and the clinician reference
    # a fresh warehouse has its release history tables, empty
    assert history == [
        ("dimension_scores", 0),
        ("headline_metrics", 0),
        ("model_scores", 0),
        ("release_comparison", 0),
        ("release_tasks", 0),
        ("releases", 0),
    ]


def _release_build_artifacts(warehouse: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """dbt's manifest.json and run_results.json of the last release build of `warehouse`."""
    target = WarehouseLayout(warehouse).builds_dir / DBT_TARGET
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    run = json.loads((target / "run_results.json").read_text(encoding="utf-8"))
    return manifest, run


LEFT_OUT_OF_THE_RELEASE_BUILD = {"release_invariant", "model_logic"}
# the published models' tests a release build leaves out: the keys of the two views over
# intermediate models (model logic); every other test of a mart or reporting model runs
LEFT_OUT_OF_THE_PUBLISHED_MODELS = {
    "unique_combination_of_columns_verdicts_response_id__criterion_id",
    "unique_combination_of_columns_cases_model_id__task_id",
}


def test_the_release_build_runs_every_data_test_but_the_left_out_tags_as_a_node(hostile_warehouse: Path) -> None:
    """dbt's own run_results.json of the release build lists every data test of the project,
    passed, each a node, but those tagged release_invariant (the seeds') or model_logic (the
    intermediate models' and two views' keys), which it leaves out; and no unit test."""
    manifest, run = _release_build_artifacts(hostile_warehouse)
    tests = {key: set(node["tags"]) for key, node in manifest["nodes"].items() if node["resource_type"] == "test"}
    left_out = {key for key, tags in tests.items() if tags & LEFT_OUT_OF_THE_RELEASE_BUILD}
    kept = tests.keys() - left_out
    ran = {r["unique_id"]: r["status"] for r in run["results"]}
    assert kept and {key: ran.get(key) for key in kept} == dict.fromkeys(kept, "pass")
    assert not left_out & ran.keys()
    # each tag is in use: the seeds' tests, the intermediate models'
    assert {tag for key in left_out for tag in tests[key]} >= LEFT_OUT_OF_THE_RELEASE_BUILD
    published_models = {
        key
        for key, node in manifest["nodes"].items()
        if node["resource_type"] == "model" and node["fqn"][1] in ("marts", "reporting")
    }
    published = {
        manifest["nodes"][key]["name"]
        for key in left_out
        if published_models & set(manifest["nodes"][key]["depends_on"]["nodes"])
    }
    assert published == LEFT_OUT_OF_THE_PUBLISHED_MODELS
    assert not [key for key in ran if key.startswith("unit_test.")]


def test_no_view_has_a_column_constraint(hostile_warehouse: Path) -> None:
    """dbt applies no constraint to a view (it warns and ignores it): a view's contract
    columns are checked by data tests instead."""
    manifest, _ = _release_build_artifacts(hostile_warehouse)
    views = {key: node for key, node in manifest["nodes"].items() if node["config"].get("materialized") == "view"}
    assert {node["name"] for node in views.values()} >= {"verdicts", "cases"}
    constrained = {
        f"{node['name']}.{name}"
        for node in views.values()
        for name, column in node["columns"].items()
        if column.get("constraints")
    }
    assert constrained == set()
    assert not [node["name"] for node in views.values() if node.get("constraints")]


def test_the_published_file_carries_the_descriptions_of_what_dbt_built(hostile_warehouse: Path) -> None:
    """Every model the release build's dbt built has its yml description as its comment, and
    every described column of it its column's (the on-run-end hook comment_on_relations)."""
    manifest, run = _release_build_artifacts(hostile_warehouse)
    built = [manifest["nodes"][r["unique_id"]] for r in run["results"] if r["unique_id"].startswith("model.")]
    expected_relations = {(n["schema"], n["alias"]): n["description"] for n in built if n["description"]}
    expected_columns = {
        (n["schema"], n["alias"], name): column["description"]
        for n in built
        for name, column in n["columns"].items()
        if column["description"]
    }
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        relations = dict(
            ((schema, name), comment)
            for schema, name, comment in connection.execute(
                "select schema_name, table_name, comment from duckdb_tables()"
                " union all select schema_name, view_name, comment from duckdb_views() where not internal"
            ).fetchall()
        )
        columns = {
            (schema, table, name): comment
            for schema, table, name, comment in connection.execute(
                "select schema_name, table_name, column_name, comment from duckdb_columns()"
            ).fetchall()
        }
    assert ("marts", "verdicts") in expected_relations and ("marts", "model_scores") in expected_relations
    assert {key: relations.get(key) for key in expected_relations} == expected_relations
    assert len(expected_columns) > 300
    assert {key: columns.get(key) for key in expected_columns} == expected_columns


def test_plain_dbt_names_the_reply_of_an_unlabelled_rubric_pair(tmp_path: Path) -> None:
    """The verdicts hold the pairs that have labels; without the gate, a release that leaves
    a pair unlabelled fails assert_every_rubric_pair_has_a_verdict with one row, its reply's."""
    release = write_release(tmp_path / "release", SynthConfig(seed=11, n_tasks=40, n_models=4))
    labels = pq.read_table(release / "judge_labels.parquet")
    first = labels.slice(0, 1).to_pylist()[0]
    same_pair = pc.and_(
        pc.equal(labels["response_id"], first["response_id"]), pc.equal(labels["criterion_id"], first["criterion_id"])
    )
    pq.write_table(labels.filter(pc.invert(same_pair)), release / "judge_labels.parquet")
    result = _plain_dbt(
        release, tmp_path, "build", "--select", "+assert_every_rubric_pair_has_a_verdict", "--exclude", "test_type:unit"
    )
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-2000:]

    run = json.loads((tmp_path / "target" / "run_results.json").read_text(encoding="utf-8"))
    failed = {r["unique_id"].split(".")[2]: r["failures"] for r in run["results"] if r["status"] == "fail"}
    assert failed == {"assert_every_rubric_pair_has_a_verdict": 1}
    with duckdb.connect(str(tmp_path / "dev.duckdb"), read_only=True) as connection:
        (rows,) = connection.execute(
            "select count(*) from intermediate.int_verdicts_keyed v"
            " inner join staging.stg_release__responses r on r.response_key = v.response_key"
            " inner join staging.stg_release__criteria c on c.criterion_key = v.criterion_key"
            " where r.response_id = ? and c.criterion_id = ?",
            [first["response_id"], first["criterion_id"]],
        ).fetchone()
    assert rows == 0  # the pair has no verdict


def test_plain_dbt_takes_the_memory_limit_the_build_takes() -> None:
    """profiles.yml repeats DuckDB's default memory limit for plain dbt (YAML cannot import
    it); it must be distressbench.settings' one, the default of Settings.memory_limit."""
    profile = (settings.PROJECT_ROOT / "profiles.yml").read_text(encoding="utf-8")
    defaults = re.findall(r"env_var\('DISTRESSBENCH_MEMORY_LIMIT', '([^']*)'\)", profile)
    assert defaults == [settings.DEFAULT_MEMORY_LIMIT]
    assert settings.Settings.from_environment({}).memory_limit == settings.DEFAULT_MEMORY_LIMIT
    assert settings.Settings.from_environment({"DISTRESSBENCH_MEMORY_LIMIT": "1500MB"}).memory_limit == "1500MB"


def test_plain_dbt_replaces_what_an_earlier_run_made(tmp_path: Path) -> None:
    """A second plain dbt run into the same database replaces every table and view (the
    first builds each in place, the second swaps each in through its intermediate name),
    the bootstrap's Python model included, and leaves no intermediate or backup relation."""
    models = ["--select", "+cell_scores +verdicts +int_bootstrap_resampled"]
    first = write_release(tmp_path / "first", SynthConfig(seed=11, n_tasks=40, n_models=4))
    second = write_release(tmp_path / "second", SynthConfig(seed=12, n_tasks=30, n_models=3))
    for release in (first, second):
        result = _plain_dbt(release, tmp_path, "run", *models)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]

    with duckdb.connect(str(tmp_path / "dev.duckdb"), read_only=True) as connection:
        (cells,) = connection.execute("select count(*) from marts.cell_scores").fetchone()
        (scored,) = connection.execute(
            "select count(*) from intermediate.int_bootstrap_resampled where statistic = 'model_score'"
        ).fetchone()
        verdicts, keyed = connection.execute(
            "select (select count(*) from marts.verdicts), (select count(*) from intermediate.int_verdicts_keyed)"
        ).fetchone()
        leftovers = connection.execute(
            "select name from (select table_name as name from duckdb_tables()"
            " union all select view_name from duckdb_views() where not internal) where contains(name, '__dbt_')"
        ).fetchall()
    assert cells == 30 * 4  # the second release: 3 ranked models and the clinician reference
    assert scored == 4
    assert verdicts == keyed > 0
    assert leftovers == []


def test_plain_dbt_opens_duckdb_with_the_profiles_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The memory limit (DISTRESSBENCH_MEMORY_LIMIT) and insertion order that profiles.yml
    gives DuckDB hold in what dbt runs."""
    monkeypatch.setenv("DISTRESSBENCH_MEMORY_LIMIT", "1000MB")
    setting = (
        "select current_setting('memory_limit') as memory_limit,"
        " current_setting('preserve_insertion_order') as is_ordered"
    )
    # the query reads no release, so none is written (a fresh clone has no default release)
    result = _plain_dbt(tmp_path / "release", tmp_path, "show", "--inline", setting, "--output", "json")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    shown = json.loads(result.stdout[result.stdout.index("{") :])["show"]
    assert shown == [{"memory_limit": "953.6 MiB", "is_ordered": False}]  # DuckDB shows 1000 MB in MiB


def test_columns_between_fails_for_each_value_out_of_range_and_names_its_column(tmp_path: Path) -> None:
    """judge_calibration's range test, run by plain dbt on a table made by hand: one failing row
    per value outside [0, 1], with its column's name; the ends of the range and nulls pass."""
    with duckdb.connect(str(tmp_path / "dev.duckdb")) as connection:
        connection.execute("create schema marts")
        connection.execute(
            "create table marts.judge_calibration as select * from (values"
            " (0.0, 1.0, null, 0.5), (1.0, -0.25, 0.5, 1.5)) as t(agreement, precision, recall, f1)"
        )
    # the range test alone reads no release, so none is written; --store-failures keeps its rows
    selected = ["--select", "judge_calibration,test_name:columns_between", "--store-failures"]
    result = _plain_dbt(tmp_path / "release", tmp_path, "test", *selected)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-2000:]

    run = json.loads((tmp_path / "target" / "run_results.json").read_text(encoding="utf-8"))
    tests = [(r["status"], r["failures"]) for r in run["results"] if r["unique_id"].startswith("test.")]
    assert tests == [("fail", 2)]
    with duckdb.connect(str(tmp_path / "dev.duckdb"), read_only=True) as connection:
        ((schema, table),) = connection.execute(
            "select schema_name, table_name from duckdb_tables() where schema_name like '%audit%'"
        ).fetchall()
        failing = connection.execute(f'select * from "{schema}"."{table}" order by column_name').fetchall()
    assert failing == [("f1", 1.5), ("precision", -0.25)]
