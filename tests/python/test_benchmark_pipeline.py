"""The benchmark's like-for-like pipeline (scripts/benchmarks/pipeline.py) does a build's
work: on the fixture release its headline metrics and the judge's kappa equal the built
warehouse's, and it refuses a release that breaks the contract."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from benchmarks import pipeline
from fixtures.releases.writer import read_table, rewrite_table


def test_the_pipeline_computes_the_builds_headline_metrics(
    hostile_warehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    pipeline.main(hostile_warehouse.parent / "release")
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        built = dict(connection.execute("select metric, value from marts.headline_metrics").fetchall())
        ((kappa,),) = connection.execute("select kappa from marts.judge_calibration where dimension = 'all'").fetchall()
    assert set(printed["headline"]) <= set(built)
    for metric, (value, low, high) in printed["headline"].items():
        assert value == pytest.approx(built[metric], abs=1e-9), metric
        assert low <= value <= high, metric
    assert printed["calibration_all_kappa"] == pytest.approx(kappa, abs=1e-12)


def test_the_pipeline_refuses_a_release_that_breaks_the_contract(good_release: Path) -> None:
    criteria = read_table(good_release, "criteria")
    index = criteria.schema.get_field_index("weight")
    weights = pa.array([0] * criteria.num_rows, pa.int32())
    rewrite_table(good_release, "criteria", criteria.set_column(index, "weight", weights))
    with pytest.raises(SystemExit, match="criteria weight"):
        pipeline.main(good_release)
