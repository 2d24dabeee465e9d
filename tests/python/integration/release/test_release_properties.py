"""Properties of releases drawn from the contract (fixtures/releases/strategies.py), cheap
enough for many examples: no dbt process per example. dbt starts once per session to
compile the models (fixtures/compiled_models.py); each example runs their compiled SQL on
DuckDB directly.

- the gate (its file and value checks, `run_gate`) accepts every drawn valid release;
- one value rule broken at random is refused, with that rule's check name;
- the verdicts, cell scores, dimension scores, each dimension's best and median and the
  recognized-not-routed counts the SQL computes equal the independent computation
  (fixtures/independent_metrics.py).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from distressbench.gate.run import run_gate
from distressbench.release.release import load_release
from fixtures.compiled_models import COMPILED_MARTS, CompiledModels
from fixtures.independent_metrics import compute
from fixtures.releases.shapes import Shape, shape_tables, write_shape_release
from fixtures.releases.strategies import BROKEN_RULES, drawn_shapes
from fixtures.releases.writer import write_release
from fixtures.warehouse_comparison import assert_scores_match


@pytest.fixture(scope="session")
def drawn_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where each example writes its release (overwritten by the next one)."""
    return tmp_path_factory.mktemp("drawn") / "release"


def _gate(release: Path, compiled: CompiledModels) -> set[str]:
    """The labels of the checks the gate fails on the release."""
    report = run_gate(load_release(release), None, echo=False, memory_limit="1GB", staging=compiled.staging())
    assert report.checks
    return {check.label for check in report.failures}


@settings(max_examples=15)
@given(shape=drawn_shapes())
def test_the_gate_accepts_every_drawn_valid_release(
    shape: Shape, compiled_models: CompiledModels, drawn_folder: Path
) -> None:
    release = write_shape_release(drawn_folder, shape)
    assert _gate(release, compiled_models) == set()


@settings(max_examples=20)
@given(shape=drawn_shapes(max_tasks=10), rule=st.sampled_from(sorted(BROKEN_RULES)))
def test_one_broken_rule_is_refused_by_its_check(
    shape: Shape, rule: str, compiled_models: CompiledModels, drawn_folder: Path
) -> None:
    tables = shape_tables(shape)
    BROKEN_RULES[rule](tables)
    release = write_release(drawn_folder, tables, shape.release_id)
    assert rule in _gate(release, compiled_models)


@settings(max_examples=40)
@given(shape=drawn_shapes())
def test_the_verdict_and_score_sql_equals_the_independent_computation(
    shape: Shape, compiled_models: CompiledModels, drawn_folder: Path
) -> None:
    release = write_shape_release(drawn_folder, shape)
    compiled_models.relink(release)
    compiled_models.run(COMPILED_MARTS)
    with duckdb.connect(str(compiled_models.database), read_only=True) as connection:
        assert_scores_match(connection, compute(release))
