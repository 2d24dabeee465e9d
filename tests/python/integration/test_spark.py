"""The same dbt project on Apache Spark (local, dbt-spark's session method): a small
release built on DuckDB and on Spark gives the same marts, row for row, to 1e-9, and the
same bootstrap tables exactly; the project's dbt unit tests pass on Spark. The Spark side
runs in one process (spark_probe.py), so that Spark starts once.

pyspark and dbt-spark come with the project's `spark` extra (scripts/setup installs it),
Java with `scripts/setup --system-packages`. Nothing here skips: a Spark that cannot start
fails the test with its reason."""

from __future__ import annotations

import fcntl
import json
import math
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from distressbench import settings
from distressbench.settings import Settings

pytestmark = pytest.mark.spark

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BIN = Path(sys.executable).parent
TOLERANCE = 1e-9
EXACT_TABLES = ("int_bootstrap_resampled", "int_calibration_resampled")  # the bootstrap, identical


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=settings.PROJECT_ROOT, env=env, capture_output=True, text=True, check=False)


def _rows(table: pa.Table) -> list[tuple[object, ...]]:
    """The rows as comparable tuples, columns by name, sorted (None first, floats as they are)."""
    names = sorted(table.column_names)
    columns = [table.column(name).to_pylist() for name in names]
    rows = [
        tuple(json.dumps(v, sort_keys=True) if isinstance(v, list | dict) else v for v in row)
        for row in zip(*columns, strict=True)
    ]
    return sorted(rows, key=lambda row: [(v is None, repr(type(v)), v if v is not None else 0) for v in row])


def _differences(name: str, duck: pa.Table, spark: pa.Table, tolerance: float) -> list[str]:
    if sorted(duck.column_names) != sorted(spark.column_names):
        return [f"{name}: columns {sorted(duck.column_names)} on DuckDB, {sorted(spark.column_names)} on Spark"]
    if duck.num_rows != spark.num_rows:
        return [f"{name}: {duck.num_rows} rows on DuckDB, {spark.num_rows} on Spark"]
    problems = []
    for duck_row, spark_row in zip(_rows(duck), _rows(spark), strict=True):
        for column, a, b in zip(sorted(duck.column_names), duck_row, spark_row, strict=True):
            both_floats = isinstance(a, float) and isinstance(b, float)
            same = (math.isclose(a, b, rel_tol=0, abs_tol=tolerance) or (math.isnan(a) and math.isnan(b))) \
                if both_floats else a == b
            if not same:
                problems.append(f"{name}.{column}: {a!r} on DuckDB, {b!r} on Spark (row {duck_row})")
    return problems[:5]


def test_spark_builds_the_same_marts_as_duckdb(tmp_path: Path) -> None:
    assert shutil.which("java"), "Java is missing: run scripts/setup --system-packages (it installs a JRE)"
    env = {
        **os.environ,
        "DISTRESSBENCH_SPARK_DIR": str(tmp_path / "spark"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "SPARK_LOCAL_IP": "127.0.0.1",
    }
    release = tmp_path / "release"
    synth = _run([str(BIN / "distressbench"), "synth", str(release), "--tasks", "40", "--models", "4"], env)
    assert synth.returncode == 0, synth.stderr
    warehouse = tmp_path / "duck.duckdb"
    duck_build = _run([str(BIN / "distressbench"), "build", str(release), "--warehouse", str(warehouse)], env)
    assert duck_build.returncode == 0, duck_build.stdout[-3000:] + duck_build.stderr[-3000:]

    out = tmp_path / "probe"
    probe = _run(
        [str(sys.executable), str(FIXTURES / "spark_probe.py"), str(release), str(out), "marts", "intermediate"], env
    )
    assert probe.returncode == 0, probe.stdout[-4000:] + probe.stderr[-4000:]
    assert "[python step] intermediate.int_bootstrap_resampled" in probe.stdout
    assert "unit tests passed" in probe.stdout
    build_dir = (tmp_path / "spark" / "current").resolve()
    assert build_dir.parent == tmp_path / "spark" and (build_dir / "metastore_db").is_dir()
    assert (release / "tasks.parquet").is_file(), "registering the release on Spark must leave its files alone"

    with duckdb.connect(str(warehouse), read_only=True) as con:
        marts = sorted(r[0] for r in con.execute(
            "select table_name from information_schema.tables where table_schema = 'marts'").fetchall())
        assert sorted(p.stem for p in (out / "marts").glob("*.parquet")) == marts
        problems = []
        for name in marts:
            duck = con.sql(f'select * from marts."{name}"').to_arrow_table()
            problems += _differences(f"marts.{name}", duck, pq.read_table(out / "marts" / f"{name}.parquet"), TOLERANCE)
        for name in EXACT_TABLES:
            duck = con.sql(f'select * from intermediate."{name}"').to_arrow_table()
            spark = pq.read_table(out / "intermediate" / f"{name}.parquet")
            problems += _differences(f"intermediate.{name}", duck, spark, 0.0)
    assert not problems, "\n".join(problems)


def test_the_comparison_reports_a_difference_beyond_the_tolerance() -> None:
    duck = pa.table({"model_id": ["a", "b"], "score": [0.5, 0.25], "rank": [1, 2]})
    assert _differences("t", duck, duck.select(["rank", "score", "model_id"]), TOLERANCE) == []
    assert _differences("t", duck, pa.table({"model_id": ["a", "b"], "score": [0.5, 0.25 + 1e-8], "rank": [1, 2]}),
                        TOLERANCE) == ["t.score: 0.25 on DuckDB, 0.25000001 on Spark (row ('b', 2, 0.25))"]
    assert _differences("t", duck, duck.slice(0, 1), TOLERANCE) == ["t: 2 rows on DuckDB, 1 on Spark"]


def test_spark_builds_into_one_folder_take_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A publish removes every build folder but the current and the previous one, so a second
    build into the same spark dir waits until the first is done (no Spark starts here: the
    stages are replaced by a stand-in that fails, which ends the build before Spark)."""
    from distressbench.build import pipeline as build
    from distressbench.build import spark as spark_build
    root = tmp_path / "spark"
    root.mkdir()
    release = tmp_path / "release"
    release.mkdir()
    (release / "manifest.json").write_text("{}", encoding="utf-8")
    started = threading.Event()

    def stages(release_dir: Path, into: Path, _settings: object) -> Path:
        started.set()
        raise build.StageFailed("gate", "stand-in")

    monkeypatch.setattr(spark_build, "build_release_on_spark", stages)
    codes: list[int] = []
    with (root / spark_build.LOCK).open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # a build in progress
        settings = Settings(spark_dir=root)
        second = threading.Thread(target=lambda: codes.append(spark_build.build_on_spark(release, settings)))
        second.start()
        assert not started.wait(timeout=1.0)
        fcntl.flock(held, fcntl.LOCK_UN)
    assert started.wait(timeout=30)
    second.join(timeout=30)
    assert codes == [1]
    assert f"waiting for another build of {root} to finish" in capsys.readouterr().out
