"""Run by test_spark.py as a script, in a process of its own (one local Spark for both):
the project's dbt unit tests on the Spark target, against the metastore of a Spark build,
then every table of the listed schemas written to Parquet for the comparison with DuckDB.

    python spark_probe.py BUILD_DIR RELEASE_DIR OUT_DIR SCHEMA...

Exit 0 when every unit test passed and the tables were written, 1 (with dbt's message) otherwise."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pyarrow.parquet as pq
from dbt.cli.main import dbtRunner
from pyspark.sql import SparkSession

from distressbench import paths


def main(build_dir: Path, release_dir: Path, out_dir: Path, schemas: list[str]) -> int:
    os.environ.update(
        {
            "DISTRESSBENCH_SPARK_DIR": str(build_dir),
            "DISTRESSBENCH_RELEASE": str(release_dir),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "DBT_LOG_PATH": str(out_dir / "logs"),
        }
    )
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    result = dbtRunner().invoke(
        [
            "test", "--select", "test_type:unit", "--target", "spark", "--target-path", str(out_dir / "target"),
            "--profiles-dir", str(paths.PROJECT_ROOT), "--project-dir", str(paths.PROJECT_ROOT),
        ]
    )
    if not result.success:
        failed = [] if result.result is None else [
            f"{r.node.name}: {r.message}" for r in result.result.results if str(r.status) != "pass"
        ]
        print(f"unit tests failed on Spark: {result.exception or ''}\n" + "\n".join(failed), file=sys.stderr)
        return 1
    n_unit_tests = len(result.result.results)
    spark = SparkSession.builder.getOrCreate()
    for schema in schemas:
        (out_dir / schema).mkdir(parents=True)
        for row in spark.sql(f"show tables in {schema}").collect():
            pq.write_table(spark.table(f"{schema}.{row.tableName}").toArrow(), out_dir / schema / f"{row.tableName}.parquet")
    print(f"{n_unit_tests} unit tests passed")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:]))
