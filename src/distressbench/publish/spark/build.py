"""`distressbench build --target spark`: the same dbt project built on Apache Spark.

Stages (each prints `[stage] ...` and `[stage] done in x s`, as the DuckDB build does):

1. gate -- the gate of `distressbench gate` (dbt on DuckDB, in a scratch file): a release that breaks the
   contract never reaches Spark;
2. dbt build -- dbt (target `spark`) builds, with its tests, every seed and model that is not
   a mart, a reporting model or downstream of a Python model; on-run-start registers the
   release's files as Spark tables (macros/release_sources.sql);
3. python step -- dbt-spark runs Python models only on Databricks, so the bootstraps run
   here (distressbench.publish.spark.step: the model files, read and written through Spark);
4. publish -- dbt builds the marts and the reporting models with their tests (then the
   tests of the step's tables, some of which read the marts): on Spark, publishing is the
   marts schema of the target, written last.

The stages that need Spark (dbt build, python step, and the publish stage's dbt runs and
headline) run in one child process (distressbench.publish.spark.stages) started with an
explicit environment: the local Spark starts once for the three dbt invocations and the step
(or, with a Spark Connect server given, SPARK_REMOTE or --spark-remote, one Connect session
serves them, and the work runs on the server's executors), and this process's environment is
never written. This process keeps the lock, the gate, the build folder and the switch of
`current`. Each build gets its own folder `<spark dir>/<release>-<stamp>/` holding dbt's
logs and, on a local Spark, its metastore and warehouse (no table one build registers is
ever seen by another; over Spark Connect the tables live in the server's catalog, the marts
schema written in the publish stage); `<spark dir>/current` is switched to it with one
rename when every stage has passed and the child has stopped Spark, and earlier builds but
the previous one are removed. Builds into one spark dir take turns (the lock
`<spark dir>/.lock`; a second build waits), so that removal never reaches a build still
running.
"""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from distressbench.errors import UsageError
from distressbench.publish.layout import build_lock
from distressbench.publish.spark.stages import SparkStages
from distressbench.publish.stages import StageFailed, say, stage
from distressbench.release.release import load_release
from distressbench.settings import Settings

CURRENT = "current"
LOCK = ".lock"  # in the spark dir: one build at a time
# Characters that Spark reads as a glob pattern (* ? [ ] { }) or an escape (\\), or that end
# the SQL string literal of a table's location ('): dbt on Spark reads the release in place.
UNSAFE_PATH_CHARACTERS = frozenset("*?[]'{}\\")


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
    """Every stage; returns the published build folder. Raises StageFailed."""
    from distressbench.gate.command import gate

    settings = settings or Settings()
    release = load_release(release_dir)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    with stage("gate"):
        report = gate(release, None, settings, echo=False)
        if not report.passed:
            failures = [c.message for c in report.checks if not c.passed]
            raise StageFailed(
                "gate", f"the release breaks the contract in {len(failures)} check(s):\n  " + "\n  ".join(failures)
            )
        say(f"[gate] {len(report.checks)} checks passed")
    release_id = release.release_id
    build_dir = root / f"{release_id}-{stamp}"
    build_dir.mkdir(parents=True)
    stages = SparkStages.start(release_dir, build_dir, settings.project_dir, settings.spark_remote)
    try:
        for name in ("dbt build", "python step"):
            with stage(name):
                stages.run(name)
        with stage("publish"):
            stages.run("publish")
            stages.stop()  # the child stops Spark before `current` points at the build
            _publish(root, build_dir)
    finally:
        stages.stop()
    return build_dir


def build_on_spark(release_dir: Path | None, settings: Settings | None = None) -> None:
    """The `distressbench build --target spark` command. UsageError for a release folder that
    cannot work; StageFailed for a failed stage, with a note that nothing was published."""
    if release_dir is None:
        from distressbench.synth.generate import ensure_default_release

        release_dir = ensure_default_release()
    release_dir = release_dir.absolute()
    refusal = _refusal(release_dir)
    if refusal is not None:
        raise UsageError(refusal)
    settings = settings or Settings.from_environment()
    root = settings.spark_dir
    root.mkdir(parents=True, exist_ok=True)
    with build_lock(root / LOCK, root):
        try:
            build = build_release_on_spark(release_dir, root, settings)
        except StageFailed as error:
            error.add_note(f"nothing was published: {root / CURRENT} is unchanged")
            raise
    say(f"published {root / CURRENT} -> {build.name}")
