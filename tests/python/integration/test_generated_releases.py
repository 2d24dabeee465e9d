"""Full builds of releases drawn from the contract (fixtures/releases/strategies.py): every
drawn release gates, builds and publishes, and its marts equal the independent computation.
A build takes tens of seconds, so few examples; the cheap properties of the same strategy
(tests/python/integration/release/test_release_properties.py) draw many."""

from __future__ import annotations

import itertools
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings

from distressbench.publish.pipeline import build_release
from fixtures.independent_metrics import compute
from fixtures.releases.shapes import Shape, write_shape_release
from fixtures.releases.strategies import drawn_shapes
from fixtures.warehouse_comparison import assert_marts_match

_COUNTER = itertools.count()


@pytest.fixture(scope="module")
def build_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("generated-builds")


@settings(max_examples=2)
@given(shape=drawn_shapes(max_tasks=10, max_ranked=4))
def test_a_drawn_release_builds_and_equals_the_independent_computation(shape: Shape, build_folder: Path) -> None:
    folder = build_folder / f"example-{next(_COUNTER)}"
    release = write_shape_release(folder / "release", shape)
    warehouse, published = build_release(release, folder / "warehouse.duckdb")
    assert published
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        assert_marts_match(connection, compute(release))
