"""`distressbench build --target spark`: the same dbt project built on Apache Spark.

Stages (each prints `[stage] ...` and `[stage] done in x s`, as the DuckDB build does):

1. gate -- the gate of `distressbench gate` (dbt on DuckDB, in a scratch file): a release that breaks the
   contract never reaches Spark;
2. dbt build -- dbt (target `spark`) builds, with its tests, every seed and model that is not
   a mart, a reporting model or downstream of a Python model; on-run-start registers the
   release's files as Spark tables (macros/release_sources.sql);
3. python step -- dbt-spark runs Python models only on Databricks, so the bootstraps run
   here (distressbench.build.spark_step: the model files, read and written through Spark);
4. publish -- dbt builds the marts and the reporting models with their tests (then the
   tests of the step's tables, some of which read the marts): on Spark, publishing is the
   marts schema of the target, written last.

dbt runs in this process (dbtRunner, the project parsed once), so the local Spark starts
once for the three dbt invocations and the step. Each build gets its own folder
`<spark dir>/<release>-<stamp>/` holding its metastore and warehouse (no table one build
registers is ever seen by another); `<spark dir>/current` is switched to it with one rename
when every stage has passed, and earlier builds but the previous one are removed. Builds
into one spark dir take turns (the lock `<spark dir>/.lock`; a second build waits), so that
removal never reaches a build still running.
"""

from __future__ import annotations

import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from distressbench.build.pipeline import StageFailed, _say, _stage, build_lock
from distressbench.release.release import load_release
from distressbench.settings import PROJECT_ROOT, Settings

TARGET = "spark"
CURRENT = "current"
LOCK = ".lock"  # in the spark dir: one build at a time
# Characters that Spark reads as a glob pattern (* ? [ ] { }) or an escape (\\), or that end
# the SQL string literal of a table's location ('): dbt on Spark reads the release in place.
UNSAFE_PATH_CHARACTERS = frozenset("*?[]'{}\\")


def spark_dir() -> Path:
    """Where local Spark builds live: DISTRESSBENCH_SPARK_DIR, else warehouse/spark."""
    return Settings.from_environment().spark_dir


class _Dbt:
    """dbt in this process, on the Spark target, with the project parsed once."""

    def __init__(self, target_dir: Path) -> None:
        from dbt.cli.main import dbtRunner

        self.flags = [
            "--target", TARGET, "--target-path", str(target_dir),
            "--profiles-dir", str(PROJECT_ROOT), "--project-dir", str(PROJECT_ROOT),
        ]
        parsed = dbtRunner().invoke(["parse", *self.flags])
        if not parsed.success:
            raise StageFailed("dbt build", f"dbt could not parse the project: {parsed.exception}")
        self.manifest = parsed.result
        self.runner = dbtRunner(manifest=self.manifest)

    def run(self, stage: str, *arguments: str) -> None:
        result = self.runner.invoke([*arguments, "--exclude-resource-type", "unit_test", *self.flags])
        if result.success:
            return
        if result.exception is not None:
            raise StageFailed(stage, f"dbt failed: {result.exception}")
        failed = [
            f"{r.node.resource_type} {r.node.name}: {r.message}"
            for r in result.result.results
            if str(r.status) in ("error", "fail", "runtime error")
        ]
        raise StageFailed(stage, f"{len(failed)} dbt node(s) failed:\n  " + "\n  ".join(failed))


def _refusal(release_dir: Path) -> str | None:
    if not (release_dir / "manifest.json").is_file():
        return f"no release (manifest.json) in {release_dir}"
    unsafe = sorted(UNSAFE_PATH_CHARACTERS.intersection(str(release_dir)))
    if unsafe:
        return (
            f"the release folder's path {str(release_dir)!r} contains {' '.join(unsafe)}, which Spark would read "
            "as a pattern or escape: move it, or link it from a plain path"
        )
    return None


def _publish(root: Path, build_dir: Path) -> None:
    """Point `<root>/current` at the build with one rename; keep it and the previous build."""
    current = root / CURRENT
    previous = current.resolve().name if current.is_symlink() else None
    link = root / f".{CURRENT}.link"
    link.unlink(missing_ok=True)
    link.symlink_to(build_dir.name)
    os.replace(link, current)
    for folder in root.iterdir():
        if folder.is_dir() and not folder.is_symlink() and folder.name not in {build_dir.name, previous}:
            shutil.rmtree(folder, ignore_errors=True)


def build_release_on_spark(release_dir: Path, root: Path, settings: Settings | None = None) -> Path:
    """Every stage; returns the published build folder, leaving this process's Spark session
    running (on that build's metastore). Raises StageFailed."""
    from distressbench.build.release_staging import gate

    release = load_release(release_dir)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    with _stage("gate"):
        report = gate(release, None, settings or Settings(), echo=False)
        if not report.passed:
            failures = [c.message for c in report.checks if not c.passed]
            raise StageFailed(
                "gate", f"the release breaks the contract in {len(failures)} check(s):\n  " + "\n  ".join(failures)
            )
        _say(f"[gate] {len(report.checks)} checks passed")
    release_id = release.release_id
    build_dir = root / f"{release_id}-{stamp}"
    build_dir.mkdir(parents=True)
    os.environ.update(
        {
            "DISTRESSBENCH_RELEASE": str(release_dir),
            "DISTRESSBENCH_SPARK_DIR": str(build_dir),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "DBT_USE_COLORS": "false",
            "DBT_LOG_PATH": str(build_dir / "logs"),
        }
    )
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from distressbench.build.spark_step import python_models, run_python_model

    with _stage("dbt build"):
        dbt = _Dbt(build_dir / "target")
        models = python_models(dbt.manifest)
        published = [
            *(f"{m.name}+" for m in models),
            f"path:{Path('models') / 'marts'}+",
            f"path:{Path('models') / 'reporting'}+",
        ]
        python_names = [f"{m.name},resource_type:model" for m in models]
        dbt.run("dbt build", "build", "--exclude", *published)
    with _stage("python step"):
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()  # the session dbt-spark started in this process
        for node in models:
            rows = run_python_model(spark, dbt.manifest, node)
            _say(f"[python step] {node.relation_name}: {rows} rows")
    with _stage("publish"):
        dbt.run("publish", "build", "--select", *published, "--exclude", *python_names)
        if models:  # the tests of the step's tables (some read the marts too)
            dbt.run("publish", "test", "--select", *(m.name for m in models))
        _print_headline(spark)
        _publish(root, build_dir)
    return build_dir


def _print_headline(spark: Any) -> None:
    rows = spark.sql(
        "select metric, value, ci_low, ci_high from marts.headline_metrics order by display_order"
    ).collect()
    for metric, value, low, high in rows:
        interval = f"[{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
        _say(f"{metric:<34} {'null' if value is None else f'{value:.3f}':>7} {interval:>17}")


def build_on_spark(release_dir: Path | None, settings: Settings | None = None) -> int:
    """The `distressbench build --target spark` command."""
    if release_dir is None:
        from distressbench.synth.generate import ensure_default_release

        release_dir = ensure_default_release()
    release_dir = release_dir.absolute()
    refusal = _refusal(release_dir)
    if refusal is not None:
        print(f"build: {refusal}", file=sys.stderr)
        return 2
    settings = settings or Settings.from_environment()
    root = settings.spark_dir
    root.mkdir(parents=True, exist_ok=True)
    with build_lock(root / LOCK, root):
        try:
            build = build_release_on_spark(release_dir, root, settings)
        except StageFailed as error:
            print(str(error), file=sys.stderr)
            print(f"nothing was published: {root / CURRENT} is unchanged", file=sys.stderr)
            return 1
    from pyspark.sql import SparkSession

    SparkSession.builder.getOrCreate().stop()
    _say(f"published {root / CURRENT} -> {build.name}")
    return 0
