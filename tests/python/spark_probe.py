"""Run by test_spark.py as a script, in a process of its own, so that one local Spark serves
all three: the Spark build of a release (distressbench.build.spark, the function behind
`distressbench build --target spark`), the project's dbt unit tests on the Spark target
against that build's metastore, then every table of the listed schemas written to Parquet
for the comparison with DuckDB.

    python spark_probe.py RELEASE_DIR OUT_DIR SCHEMA...   (DISTRESSBENCH_SPARK_DIR: where to build)

Exit 0 when the build and every unit test passed and the tables were written, 1 otherwise."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pyarrow.parquet as pq
from dbt.cli.main import dbtRunner
from pyspark.sql import SparkSession

from distressbench import settings
from distressbench.build.pipeline import StageFailed
from distressbench.build.spark import build_release_on_spark, spark_dir


def main(release_dir: Path, out_dir: Path, schemas: list[str]) -> int:
    try:
        build_dir = build_release_on_spark(release_dir, spark_dir())
    except StageFailed as error:
        print(error, file=sys.stderr)
        return 1
    print(f"built {build_dir}")
    os.environ["DBT_LOG_PATH"] = str(out_dir / "logs")
    result = dbtRunner().invoke(
        [
            "test", "--select", "test_type:unit", "--target", "spark", "--target-path", str(out_dir / "target"),
            "--profiles-dir", str(settings.PROJECT_ROOT), "--project-dir", str(settings.PROJECT_ROOT),
        ]
    )
    if not result.success:
        failed = [] if result.result is None else [
            f"{r.node.name}: {r.message}" for r in result.result.results if str(r.status) != "pass"
        ]
        print(f"unit tests failed on Spark: {result.exception or ''}\n" + "\n".join(failed), file=sys.stderr)
        return 1
    print(f"{len(result.result.results)} unit tests passed")
    spark = SparkSession.builder.getOrCreate()
    for schema in schemas:
        (out_dir / schema).mkdir(parents=True)
        for row in spark.sql(f"show tables in {schema}").collect():
            table = spark.table(f"{schema}.{row.tableName}").toArrow()
            pq.write_table(table, out_dir / schema / f"{row.tableName}.parquet")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).absolute(), Path(sys.argv[2]).absolute(), sys.argv[3:]))
