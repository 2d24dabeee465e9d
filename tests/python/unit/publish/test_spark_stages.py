"""The Spark stages' process, without Spark: the environment it is given (a stage's failure
in it: tests/python/integration/publish/test_spark_stage_failure.py)."""

from __future__ import annotations

from pathlib import Path

from distressbench.publish.spark.stages import dbt_target, spark_environment


def test_the_spark_process_gets_the_build_in_its_environment() -> None:
    release, build = Path("/releases/r1"), Path("/spark/r1-stamp")
    given = {"PATH": "/bin", "DISTRESSBENCH_SPARK_DIR": "/spark", "DBT_USE_COLORS": "true"}
    assert spark_environment(release, build, given) == {
        "PATH": "/bin",
        "SPARK_LOCAL_IP": "127.0.0.1",
        "DISTRESSBENCH_RELEASE": "/releases/r1",
        "DISTRESSBENCH_SPARK_DIR": "/spark/r1-stamp",
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_USE_COLORS": "false",
        "DBT_LOG_PATH": "/spark/r1-stamp/logs",
    }
    assert spark_environment(release, build, {"SPARK_LOCAL_IP": "10.1.2.3"})["SPARK_LOCAL_IP"] == "10.1.2.3"


def test_a_remote_reaches_the_spark_process_only_when_the_build_is_given_one() -> None:
    """SPARK_REMOTE is the build's Connect server, or absent (a local Spark), whatever the
    environment it started in said; the profile's target follows it."""
    release, build = Path("/releases/r1"), Path("/spark/r1-stamp")
    stale = {"PATH": "/bin", "SPARK_REMOTE": "sc://elsewhere:15002"}
    local = spark_environment(release, build, stale)
    remote = spark_environment(release, build, stale, "sc://cluster:15002")
    assert "SPARK_REMOTE" not in local and dbt_target(local) == "spark"
    assert remote["SPARK_REMOTE"] == "sc://cluster:15002" and dbt_target(remote) == "spark_connect"
