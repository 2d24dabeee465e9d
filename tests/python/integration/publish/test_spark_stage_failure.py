"""A stage that fails in the Spark stages' process (without Spark) fails the build at that
stage, said as the build says every stage's failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from distressbench.publish.spark.stages import SparkStages
from distressbench.publish.stages import StageFailed
from distressbench.settings import Settings


def test_a_stage_that_fails_in_the_spark_process_fails_the_build_at_that_stage(tmp_path: Path) -> None:
    stages = SparkStages.start(tmp_path / "release", tmp_path, Settings().project_dir)
    try:
        with pytest.raises(StageFailed, match=r"^build failed at stage 'lunch': no stage named 'lunch'$"):
            stages.run("lunch")
    finally:
        stages.stop()
