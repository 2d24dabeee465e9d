"""The stages of a Spark build that need Spark, in a child process of the build.

dbt-spark's `session` method starts a local Spark inside the process that runs dbt (the
profile's `spark` target), or, with SPARK_REMOTE set, opens a Spark Connect session to a
server whose executors do the work (the `spark_connect` target, which sets no `spark.master`:
pyspark refuses a master beside a remote); the Python step (distressbench.publish.spark.step)
reads and writes through that same session. So
`distressbench build --target spark` (distressbench.publish.spark.build, which keeps the lock, the
gate, the build folder and the switch of `current`) runs these stages in one child process:
dbt build, python step, and publish (its dbt runs, then the headline metrics). There dbt
parses the project once (dbtRunner) and Spark starts once.

`SparkStages.start` starts `python -m distressbench.publish.spark.stages` with an explicit
environment (`spark_environment`: the build's release and folder, dbt's settings, Spark's
address, SPARK_REMOTE exactly when the build is given a Connect server), so the build never
writes its own. `SparkStages.run` sends a stage's name; the child runs that stage, printing
to the output it shares with the build (the stage's lines, dbt's console output), then
answers with the stage's failure, if any (orders and answers are JSON lines, as dbt's
process takes them: distressbench.dbt.child_process). When its stdin closes it stops Spark
and exits. The child never outlives the build.

Run as `python -m distressbench.publish.spark.stages PARENT_PID ANSWERS_FD BUILD_DIR PROJECT_DIR` by
SparkStages only.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from distressbench.dbt import child_process
from distressbench.dbt.relations import HEADLINE_METRICS
from distressbench.errors import DistressbenchError
from distressbench.publish.spark.step import python_models, run_python_model
from distressbench.publish.stages import NOT_IN_A_RELEASE_BUILD, StageFailed, say

LOCAL_TARGET = "spark"  # profiles.yml: a local Spark in the dbt process
CONNECT_TARGET = "spark_connect"  # profiles.yml: a Spark Connect server (SPARK_REMOTE)
# How long a Connect client keeps retrying a server it cannot reach (pyspark's DefaultPolicy
# arguments; its own default waits more than ten minutes): 1 + 2 + 4 + 8 + 8 s, so a build
# whose server has gone fails its stage within half a minute, and a short blip is ridden out
CONNECT_RETRY_POLICY = {"max_retries": 5, "initial_backoff": 1000, "backoff_multiplier": 2.0, "max_backoff": 8000}
MODULE = "distressbench.publish.spark.stages"  # the child's module, in its command line
DEFAULT_SPARK_LOCAL_IP = "127.0.0.1"  # the address local Spark binds, unless SPARK_LOCAL_IP says otherwise


def spark_environment(
    release_dir: Path, build_dir: Path, environ: Mapping[str, str], remote: str | None = None
) -> dict[str, str]:
    """The child's environment: `environ` with the release, the build folder (where the
    local profile puts Spark's metastore and warehouse, and dbt its logs), dbt's settings,
    SPARK_LOCAL_IP unless `environ` sets it, and SPARK_REMOTE set to `remote` (or removed:
    a local build)."""
    environment = {
        "SPARK_LOCAL_IP": DEFAULT_SPARK_LOCAL_IP,
        **{name: value for name, value in environ.items() if name != "SPARK_REMOTE"},
        "DISTRESSBENCH_RELEASE": str(release_dir),
        "DISTRESSBENCH_SPARK_DIR": str(build_dir),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_USE_COLORS": "false",
        "DBT_LOG_PATH": str(build_dir / "logs"),
    }
    return environment | ({"SPARK_REMOTE": remote} if remote else {})


def dbt_target(environ: Mapping[str, str]) -> str:
    """The profile's target for the environment a Spark process runs in."""
    return CONNECT_TARGET if environ.get("SPARK_REMOTE") else LOCAL_TARGET


class SparkStages:
    """The child process that runs the Spark stages of one build, one `run` per stage."""

    def __init__(self, child: child_process.Child) -> None:
        self._child = child
        self._running = False  # a stage was sent and not answered

    @classmethod
    def start(cls, release_dir: Path, build_dir: Path, project: Path, remote: str | None = None) -> SparkStages:
        """Start the child for the build in `build_dir` (its working folder) of `release_dir`
        with the dbt project in `project`, on a local Spark or, given `remote`, over that
        Spark Connect server."""
        release_dir, build_dir = release_dir.absolute(), build_dir.absolute()
        environment = spark_environment(release_dir, build_dir, os.environ, remote)
        child = child_process.Child.start(MODULE, [str(build_dir), str(project)], cwd=build_dir, env=environment)
        return cls(child)

    def run(self, stage: str) -> None:
        """Run `stage` in the child; StageFailed if it fails or the child ends first."""
        self._running = True
        self._child.send(stage)
        answer = self._child.receive()
        if answer is None:
            code = self._child.exit_code()
            raise StageFailed(stage, f"the Spark process ended with exit code {code} (its output is above)")
        self._running = False
        if answer["failure"] is not None:
            raise StageFailed(stage, answer["failure"])

    def stop(self) -> None:
        """End the child and wait for it (nothing once it has ended): between stages, it stops
        Spark once its stdin closes; during one (the build interrupted), it is ended at once."""
        self._child.close_orders(wait=not self._running)
        self._child.stop()


class _Failed(DistressbenchError):
    """A stage's failure, said as it is (any other exception is said with its type)."""


class _Dbt:
    """dbt on the Spark target, with the project parsed once."""

    def __init__(self, target_dir: Path, project: Path, *, fail_fast: bool) -> None:
        from dbt.cli.main import dbtRunner

        self.flags = [
            *(["--fail-fast"] if fail_fast else []),
            "--target",
            dbt_target(os.environ),
            "--target-path",
            str(target_dir),
            "--profiles-dir",
            str(project),
            "--project-dir",
            str(project),
        ]
        parsed = dbtRunner().invoke(["parse", *self.flags])
        if not parsed.success:
            raise _Failed(f"dbt could not parse the project: {parsed.exception}")
        self.manifest = parsed.result
        self.runner = dbtRunner(manifest=self.manifest)

    def run(self, *arguments: str) -> None:
        result = self.runner.invoke([*arguments, *NOT_IN_A_RELEASE_BUILD, *self.flags])
        if result.success:
            return
        if result.exception is not None:
            raise _Failed(f"dbt failed: {result.exception}")
        failed = [
            f"{r.node.resource_type} {r.node.name}: {r.message}"
            for r in result.result.results
            if str(r.status) in ("error", "fail", "runtime error")
        ]
        raise _Failed(f"{len(failed)} dbt node(s) failed:\n  " + "\n  ".join(failed))


class _Stages:
    """In the child: the stages, run in order, sharing the parsed project and Spark's session."""

    def __init__(self, build_dir: Path, project: Path) -> None:
        self._build_dir = build_dir
        self._project = project
        self._spark: Any = None

    def _connect(self) -> None:
        """Over Spark Connect: open the session dbt-spark and the step share (dbt-spark's
        getOrCreate finds it), retrying an unreachable server for a bounded time. dbt-spark
        asks each time for Hive support, a static setting that is the server's: pyspark's
        warning that it cannot set it is left out of the output."""
        from pyspark.sql import SparkSession
        from pyspark.sql.connect.client.retries import DefaultPolicy

        warnings.filterwarnings("ignore", message="Failed to set spark.sql.catalogImplementation")

        self._spark = SparkSession.builder.getOrCreate()
        self._spark.client.set_retry_policies([DefaultPolicy(**CONNECT_RETRY_POLICY)])

    def dbt_build(self) -> None:
        """Every seed and model but the Python models, the marts, the reporting models and
        what depends on them, with their tests. Over Spark Connect dbt stops at the first
        failure (a server gone would make every other node wait out its retries)."""
        remote = dbt_target(os.environ) == CONNECT_TARGET
        if remote:
            self._connect()
        self._dbt = _Dbt(self._build_dir / "target", self._project, fail_fast=remote)
        self._models = python_models(self._dbt.manifest)
        self._published = [
            *(f"{m.name}+" for m in self._models),
            f"path:{Path('models') / 'marts'}+",
            f"path:{Path('models') / 'reporting'}+",
        ]
        self._dbt.run("build", "--exclude", *self._published)

    def python_step(self) -> None:
        """Each Python model, run through the session dbt-spark started or found in this process."""
        from pyspark.sql import SparkSession

        self._spark = self._spark or SparkSession.builder.getOrCreate()
        for node in self._models:
            rows = run_python_model(self._spark, self._dbt.manifest, node, self._project)
            say(f"[python step] {node.relation_name}: {rows} rows")

    def publish(self) -> None:
        """The marts and reporting models with their tests, the tests of the step's tables
        (some read the marts too), then the headline metrics."""
        python_names = [f"{m.name},resource_type:model" for m in self._models]
        self._dbt.run("build", "--select", *self._published, "--exclude", *python_names)
        if self._models:
            self._dbt.run("test", "--select", *(m.name for m in self._models))
        rows = self._spark.sql(
            f"select metric, value, ci_low, ci_high from {HEADLINE_METRICS} order by display_order"
        ).collect()
        for metric, value, low, high in rows:
            interval = f"[{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
            say(f"{metric:<34} {'null' if value is None else f'{value:.3f}':>7} {interval:>17}")

    def stop(self) -> None:
        if self._spark is not None:
            self._spark.stop()


def _failure(stage: Callable[[], None]) -> str | None:
    """What went wrong in `stage`, or None."""
    try:
        stage()
    except _Failed as error:
        return str(error)
    except Exception as error:  # any surprise inside a stage is that stage's failure
        return f"{type(error).__name__}: {error}"
    return None


def _start_resource_tracker(log: Path) -> None:
    """Start multiprocessing's resource tracker writing to `log`. dbt's locks start the tracker,
    a process that outlives this one and, when this process is ended before it could release
    them (a server gone, a build stopped), warns of them on its stderr: in the log, not after
    the build's last line."""
    from multiprocessing import resource_tracker

    log.parent.mkdir(parents=True, exist_ok=True)
    stderr = os.dup(2)
    try:
        with log.open("ab") as sink:
            os.dup2(sink.fileno(), 2)
            resource_tracker.ensure_running()
    finally:
        os.dup2(stderr, 2)
        os.close(stderr)


def main(parent: int, answers_fd: int, build_dir: Path, project: Path) -> int:
    """In the child: run each stage named on stdin and answer; stop Spark when stdin closes."""
    child_process.end_with_parent(parent)
    _start_resource_tracker(Path(os.environ["DBT_LOG_PATH"]) / "resource_tracker.log")  # dbt's log folder
    stages = _Stages(build_dir, project)
    by_name = {"dbt build": stages.dbt_build, "python step": stages.python_step, "publish": stages.publish}
    answers = child_process.Answers(answers_fd)
    try:
        for name in answers.orders():
            failure = _failure(by_name[name]) if name in by_name else f"no stage named {name!r}"
            answers.answer({"failure": failure})
    finally:
        answers.close()
        stages.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])))
