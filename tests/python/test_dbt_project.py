"""Plain `dbt build` from the repo root: every model, data test and unit test passes.

`distressbench build` leaves the unit tests and the gate-guaranteed staging tests out of
the release build; this is where they run, and it keeps the README's promise that plain
`dbt build` works.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb

from distressbench import paths
from distressbench.synth import SynthConfig, write_release


def test_plain_dbt_build_runs_every_test_including_the_unit_tests(tmp_path: Path) -> None:
    release = write_release(tmp_path / "release", SynthConfig(seed=11, n_tasks=40, n_models=4))
    database = tmp_path / "dev.duckdb"
    env = {
        **os.environ,
        "DISTRESSBENCH_RELEASE": str(release),
        "DISTRESSBENCH_BUILD_DB": str(database),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_USE_COLORS": "false",
        "DBT_TARGET_PATH": str(tmp_path / "target"),
        "DBT_LOG_PATH": str(tmp_path / "logs"),
    }
    dbt = Path(sys.executable).with_name("dbt")
    result = subprocess.run([str(dbt), "build"], cwd=paths.PROJECT_ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]

    run = json.loads((tmp_path / "target" / "run_results.json").read_text(encoding="utf-8"))
    ran = {r["unique_id"].split(".")[0] for r in run["results"]}
    assert {"model", "test", "unit_test", "seed"} <= ran
    gate_guaranteed = [
        r for r in run["results"] if "unique_combination_of_columns_stg_release__judge_labels" in r["unique_id"]
    ]
    assert [r["status"] for r in gate_guaranteed] == ["pass"]
    assert all(r["status"] in ("success", "pass", "no-op") for r in run["results"])
    with duckdb.connect(str(database), read_only=True) as connection:
        (cells,) = connection.execute("select count(*) from marts.cell_scores").fetchone()
        history = connection.execute(
            "select table_name, estimated_size from duckdb_tables() where schema_name = 'history' order by table_name"
        ).fetchall()
    assert cells == 40 * 5  # 4 ranked models and the clinician reference
    # a fresh warehouse has its release history tables, empty
    assert history == [("dimension_scores", 0), ("headline_metrics", 0), ("model_scores", 0), ("releases", 0)]
