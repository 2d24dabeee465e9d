"""The same dbt project on Apache Spark.

On a Spark cluster (a standalone master, two workers and a Spark Connect server on
127.0.0.1, started once for the session: fixtures/spark_cluster.py), through dbt-spark's
session method over Spark Connect: a small release built on DuckDB and on the cluster gives
the same marts, row for row, to 1e-9, and the same bootstrap tables exactly, with the work
done by the executors (the release has no red-team annex: its mart is empty, not missing);
the project's dbt unit tests pass there. The Spark build runs through the CLI's function (spark_probe.py build),
which leaves its process's environment as it was; the unit tests and the export of the
tables run in a second process (spark_probe.py tables) over the same server. A build whose
Connect server goes away publishes nothing and names the stage.

On a local Spark (`local[2]` in the build's Spark process), what only it has: a Spark that
cannot start fails its stage and publishes nothing, and the build's Spark process ends with
the build however it is stopped.

pyspark and dbt-spark come with the project's `spark` extra (scripts/setup installs it),
Java with `scripts/setup --system-packages`. Nothing here skips: a Spark that cannot start
fails the test with its reason."""

from __future__ import annotations

import fcntl
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from distressbench import settings
from distressbench.settings import Settings
from fixtures.processes import alive, wait_for
from fixtures.releases.hand_built import make_release
from fixtures.spark_cluster import SparkCluster

pytestmark = pytest.mark.spark

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BIN = Path(sys.executable).parent
TOLERANCE = 1e-9
EXACT_TABLES = ("int_bootstrap_resampled", "int_calibration_resampled")  # the bootstrap, identical
SPARK_STAGES = b"distressbench.publish.spark.stages"  # in the command line of the build's Spark process


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
            same = (
                (math.isclose(a, b, rel_tol=0, abs_tol=tolerance) or (math.isnan(a) and math.isnan(b)))
                if both_floats
                else a == b
            )
            if not same:
                problems.append(f"{name}.{column}: {a!r} on DuckDB, {b!r} on Spark (row {duck_row})")
    return problems[:5]


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkCluster]:
    """A standalone master, two workers and a Connect server on 127.0.0.1, for the session;
    every process it started is ended and its folder removed at the end."""
    assert shutil.which("java"), "Java is missing: run scripts/setup --system-packages (it installs a JRE)"
    folder = tmp_path_factory.mktemp("cluster")
    running = SparkCluster(folder)
    try:
        running.start()
        yield running
    finally:
        running.stop()
        shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class ClusterRun:
    """One release built on DuckDB and over Spark Connect on the cluster, and what the
    Spark build printed and changed."""

    release: Path
    spark_dir: Path
    duckdb_warehouse: Path
    spark_tables: Path  # the Spark build's tables, as Parquet, one folder per schema
    printed: str  # the Spark build's output
    environ_changes: dict[str, list[str | None]]  # what the Spark build changed in its process's environment
    tasks_before: dict[str, int]  # completed tasks by executor id, before the Spark build
    tasks_after: dict[str, int]  # and after it


def _completed_tasks(cluster: SparkCluster) -> dict[str, int]:
    return {str(e["id"]): int(e["completedTasks"]) for e in cluster.executors()}  # type: ignore[call-overload]


def _build_on_the_cluster(
    folder: Path, release: Path, warehouse: Path, cluster: SparkCluster, env: dict[str, str]
) -> ClusterRun:
    """The cluster build of `release` (whose DuckDB build is `warehouse`), and the cluster's
    tables exported."""
    cluster.ensure_connect_server()
    before = _completed_tasks(cluster)
    changes = folder / "environ-changes.json"
    build = _run(
        [sys.executable, str(FIXTURES / "spark_probe.py"), "build", str(release), str(changes), cluster.remote], env
    )
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    after = _completed_tasks(cluster)
    out = folder / "tables"
    tables_env = {
        **env,
        "DISTRESSBENCH_RELEASE": str(release),  # on-run-start registers the release's files again
        "DISTRESSBENCH_SPARK_DIR": str((folder / "spark" / "current").resolve()),
        "DBT_LOG_PATH": str(out / "logs"),
        "SPARK_REMOTE": cluster.remote,
    }
    compared = ["marts", *(f"intermediate.{name}" for name in EXACT_TABLES)]
    tables = _run([sys.executable, str(FIXTURES / "spark_probe.py"), "tables", str(out), *compared], tables_env)
    assert tables.returncode == 0, tables.stdout[-4000:] + tables.stderr[-4000:]
    assert "unit tests passed" in tables.stdout
    return ClusterRun(
        release, folder / "spark", warehouse, out, build.stdout, json.loads(changes.read_text()), before, after
    )


def _environment(folder: Path) -> dict[str, str]:
    environ = {name: value for name, value in os.environ.items() if name != "SPARK_REMOTE"}
    return {**environ, "DISTRESSBENCH_SPARK_DIR": str(folder / "spark"), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}


@pytest.fixture(scope="module")
def cluster_run(
    cluster: SparkCluster, small_synthetic_warehouse: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> ClusterRun:
    """The session's small synthetic release (40 tasks, 4 models) without the optional red-team
    annex, on both engines: the annex's absence is what Spark's source registration treats
    specially. Its DuckDB build is the session's (fixtures/session_warehouses.py)."""
    folder = tmp_path_factory.mktemp("spark")
    release, warehouse = small_synthetic_warehouse
    return _build_on_the_cluster(folder, release, warehouse, cluster, _environment(folder))


def _compare(run: ClusterRun) -> list[str]:
    """Every mart to 1e-9 and the bootstrap tables exactly, DuckDB's build against the cluster's."""
    out = run.spark_tables
    with duckdb.connect(str(run.duckdb_warehouse), read_only=True) as con:
        marts = sorted(
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables where table_schema = 'marts'"
            ).fetchall()
        )
        assert sorted(p.stem for p in (out / "marts").glob("*.parquet")) == marts
        problems = []
        for name in marts:
            duck = con.sql(f'select * from marts."{name}"').to_arrow_table()
            problems += _differences(f"marts.{name}", duck, pq.read_table(out / "marts" / f"{name}.parquet"), TOLERANCE)
        for name in EXACT_TABLES:
            duck = con.sql(f'select * from intermediate."{name}"').to_arrow_table()
            spark = pq.read_table(out / "intermediate" / f"{name}.parquet")
            problems += _differences(f"intermediate.{name}", duck, spark, 0.0)
    return problems


def test_a_cluster_builds_the_same_marts_as_duckdb(cluster_run: ClusterRun) -> None:
    build_dir = (cluster_run.spark_dir / "current").resolve()
    assert build_dir.parent == cluster_run.spark_dir
    assert not (build_dir / "metastore_db").exists(), "over Spark Connect the metastore is the server's"
    assert (cluster_run.release / "tasks.parquet").is_file(), "registering the release on Spark leaves its files alone"
    problems = _compare(cluster_run)
    assert not problems, "\n".join(problems)
    annex_mart = pq.read_table(cluster_run.spark_tables / "marts" / "redteam_summary.parquet")
    assert annex_mart.num_rows == 0, "a release without the annex: its mart is empty, not missing"


def test_the_cluster_build_ran_on_the_executors(cluster_run: ClusterRun) -> None:
    """The Connect server's status API: each of the two executors (one per worker, not the
    driver) completed tasks during the build."""
    assert sorted(cluster_run.tasks_after) == sorted(cluster_run.tasks_before) and len(cluster_run.tasks_after) == 2
    ran = {e: cluster_run.tasks_after[e] - cluster_run.tasks_before.get(e, 0) for e in cluster_run.tasks_after}
    assert all(tasks > 0 for tasks in ran.values()), ran


def test_a_spark_build_prints_its_stages_in_order(cluster_run: ClusterRun) -> None:
    """The Spark process's lines (the step's tables, the headline) come inside their stages."""
    expected = [
        "[gate] ...",
        "[gate] done in",
        "[dbt build] ...",
        "[dbt build] done in",
        "[python step] ...",
        "[python step] intermediate.int_bootstrap_resampled: ",
        "[python step] done in",
        "[publish] ...",
        "best_model_score",
        "[publish] done in",
        f"published {cluster_run.spark_dir / 'current'} -> ",
    ]
    lines = iter(cluster_run.printed.splitlines())
    missing = [start for start in expected if not any(line.startswith(start) for line in lines)]
    assert not missing, f"not printed in this order: {missing}\n{cluster_run.printed[-3000:]}"


def test_a_spark_build_leaves_the_environment_of_its_process_unchanged(cluster_run: ClusterRun) -> None:
    assert cluster_run.environ_changes == {}


def test_the_comparison_reports_a_difference_beyond_the_tolerance() -> None:
    duck = pa.table({"model_id": ["a", "b"], "score": [0.5, 0.25], "rank": [1, 2]})
    assert _differences("t", duck, duck.select(["rank", "score", "model_id"]), TOLERANCE) == []
    assert _differences(
        "t", duck, pa.table({"model_id": ["a", "b"], "score": [0.5, 0.25 + 1e-8], "rank": [1, 2]}), TOLERANCE
    ) == ["t.score: 0.25 on DuckDB, 0.25000001 on Spark (row ('b', 2, 0.25))"]
    assert _differences("t", duck, duck.slice(0, 1), TOLERANCE) == ["t: 2 rows on DuckDB, 1 on Spark"]


def test_spark_builds_into_one_folder_take_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A publish removes every build folder but the current and the previous one, so a second
    build into the same spark dir waits until the first is done (no Spark starts here: the
    stages are replaced by a stand-in that fails, which ends the build before Spark)."""
    from distressbench.publish.spark import build as spark_build
    from distressbench.publish.stages import StageFailed

    root = tmp_path / "spark"
    root.mkdir()
    release = tmp_path / "release"
    release.mkdir()
    (release / "manifest.json").write_text("{}", encoding="utf-8")
    started = threading.Event()

    def stages(release_dir: Path, into: Path, _settings: object) -> Path:
        started.set()
        raise StageFailed("gate", "stand-in")

    monkeypatch.setattr(spark_build, "build_release_on_spark", stages)
    failures: list[StageFailed] = []

    def build() -> None:
        try:
            spark_build.build_on_spark(release, settings)
        except StageFailed as error:
            failures.append(error)

    with (root / spark_build.LOCK).open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # a build in progress
        settings = Settings(spark_dir=root)
        second = threading.Thread(target=build)
        second.start()
        assert not started.wait(timeout=1.0)
        fcntl.flock(held, fcntl.LOCK_UN)
    assert started.wait(timeout=30)
    second.join(timeout=30)
    (failure,) = failures
    assert failure.exit_code == 1 and failure.__notes__ == [f"nothing was published: {root / 'current'} is unchanged"]
    assert f"waiting for another build of {root} to finish" in capsys.readouterr().out


def _spark_build(release: Path, spark_dir: Path, output: Path, **environ: str) -> subprocess.Popen[bytes]:
    """`distressbench build --target spark` in a session of its own (Ctrl-C reaches only it),
    on a local Spark unless `environ` gives SPARK_REMOTE."""
    env = {**_environment(spark_dir.parent), "DISTRESSBENCH_SPARK_DIR": str(spark_dir), **environ}
    with output.open("wb") as sink:
        return subprocess.Popen(
            [str(BIN / "distressbench"), "build", "--target", "spark", str(release)],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def test_a_failed_spark_stage_publishes_nothing(tmp_path: Path) -> None:
    """A Spark that cannot start fails the dbt build stage in the Spark process: the build says
    so as every failed stage does, and the published build stays as it was."""
    spark_dir = tmp_path / "spark"
    (spark_dir / "earlier-build").mkdir(parents=True)
    (spark_dir / "current").symlink_to("earlier-build")
    build = _spark_build(
        make_release(tmp_path / "release"), spark_dir, tmp_path / "out", DISTRESSBENCH_SPARK_MASTER="no-such-master"
    )
    assert build.wait(timeout=600) == 1
    printed = (tmp_path / "out").read_text()
    assert "build failed at stage 'dbt build': " in printed, printed[-3000:]
    assert printed.splitlines()[-1] == f"nothing was published: {spark_dir / 'current'} is unchanged"
    assert os.readlink(spark_dir / "current") == "earlier-build"


def _spark_process(build: subprocess.Popen[bytes]) -> int | None:
    """The pid of the build's Spark process, if it runs."""
    for task in Path(f"/proc/{build.pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                if SPARK_STAGES in Path(f"/proc/{child}/cmdline").read_bytes():
                    return int(child)
            except OSError:
                continue
    return None


@pytest.mark.parametrize(
    ("stop", "exit_code", "last_line"),
    [
        ("SIGTERM", 128 + signal.SIGTERM, "build: terminated (SIGTERM); every process it started has ended"),
        ("Ctrl-C", 130, "build: interrupted"),
        ("kill -9", -signal.SIGKILL, None),
    ],
)
def test_the_spark_process_ends_with_the_build(
    tmp_path: Path, stop: str, exit_code: int, last_line: str | None
) -> None:
    """Stopped in its dbt build stage, the build takes its Spark process along: it ends it on
    SIGTERM and on Ctrl-C (the terminal's SIGINT to the whole process group), and Linux ends
    it with a build killed outright."""
    output = tmp_path / "out"
    build = _spark_build(make_release(tmp_path / "release"), tmp_path / "spark", output)
    try:
        wait_for(lambda: "[dbt build] ..." in output.read_text() or build.poll() is not None, "the dbt build stage")
        spark = _spark_process(build)
        assert spark is not None, output.read_text()[-3000:]
        if stop == "Ctrl-C":
            os.killpg(build.pid, signal.SIGINT)
        else:
            build.send_signal(signal.SIGTERM if stop == "SIGTERM" else signal.SIGKILL)
        assert build.wait(timeout=60) == exit_code
        wait_for(lambda: not alive(spark), "the Spark process to end with the build", timeout=20)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    if last_line is not None:
        printed = output.read_text().splitlines()
        # the dying Spark process may leave a partial line of blanks before the build's last word
        assert printed[-1].strip() == last_line, printed[-20:]
        interruption = "Terminated" if stop == "SIGTERM" else "KeyboardInterrupt"
        assert f"build stopped at stage 'dbt build' ({interruption})" in printed, printed[-20:]
    assert not (tmp_path / "spark" / "current").exists()


def test_a_cluster_build_whose_connect_server_goes_away_publishes_nothing(
    cluster: SparkCluster, tmp_path: Path
) -> None:
    """The Connect server ended while dbt builds: the build fails at that stage, says so in
    one line, and publishes nothing."""
    output = tmp_path / "out"
    build = _spark_build(
        make_release(tmp_path / "release"),
        tmp_path / "spark",
        output,
        DISTRESSBENCH_SPARK_THREADS="1",
        SPARK_REMOTE=cluster.remote,
    )
    try:
        wait_for(lambda: " OK created " in output.read_text() or build.poll() is not None, "dbt's first model")
        cluster.stop_process("connect")
        assert build.wait(timeout=300) == 1, output.read_text()[-3000:]
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    printed = output.read_text()
    lines = printed.splitlines()
    failed = [line for line in lines if line.startswith("build failed at stage ")]
    assert failed and failed[0].startswith("build failed at stage 'dbt build': "), "\n".join(lines[-40:])
    assert lines[-1] == f"nothing was published: {tmp_path / 'spark' / 'current'} is unchanged"
    assert "resource_tracker" not in printed, "\n".join(lines[-10:])  # its warnings go to the build's log
    assert not (tmp_path / "spark" / "current").exists()
