"""history.carry_forward on hand-made database files: what it copies, and from what."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from distressbench.publish.history import carry_forward, history_tables
from distressbench.settings import Settings


def _published(path: Path, *, with_meta: bool = True, with_history: bool = True) -> Path:
    """A published file of release r2 (published at t2) whose history holds r1 and a stale r2."""
    with duckdb.connect(str(path)) as connection:
        connection.execute("create schema marts")
        # more columns than history keeps (display_name kept, provider not), in another order
        connection.execute(
            "create table marts.model_scores as select * from (values"
            " ('r2', 'm''1', 'Model \"1\"', 'lab', 'model', 6::bigint, 0.5::double, 0.25::double, 0.75::double,"
            " 1::bigint, 1::integer)) as t(release_id, model_id, display_name, provider, kind, n_tasks, score,"
            " ci_low, ci_high, rank, tie_group)"
        )
        connection.execute(
            "create table marts.headline_metrics as select * from (values ('r2', 'best_model_score', 1, 0.5, 0.25,"
            " 0.75, 0.884)) as t(release_id, metric, display_order, value, ci_low, ci_high, paper_value)"
        )
        # dimension_scores without n_tasks: carried as null
        connection.execute(
            "create table marts.dimension_scores as select * from (values ('r2', 'm''1', 'model', 'routing', 0.5))"
            " as t(release_id, model_id, kind, dimension, score)"
        )
        if with_meta:
            connection.execute("create schema meta")
            connection.execute(
                "create table meta.published_releases as select * from (values"
                " ('r1', 'sha-1', 't1'), ('r2', 'sha-old', 't0'), ('r2', 'sha-2', 't2'))"
                " as t(release_id, manifest_sha256, published_at)"
            )
        if with_history:
            connection.execute("create schema history")
            connection.execute(
                "create table history.releases as select * from (values ('r1', 't1', 'sha-1'), ('r2', 't0', 'sha-old'))"
                " as t(release_id, published_at, manifest_sha256)"
            )
            connection.execute(
                "create table history.model_scores as select * from (values ('r1', 't1', 'm''1', 0.25),"
                " ('r2', 't0', 'm''1', 0.125)) as t(release_id, published_at, model_id, score)"
            )
    return path


def _rows(database: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute(sql).fetchall()


def test_a_fresh_warehouse_gets_empty_history_tables(tmp_path: Path) -> None:
    building = tmp_path / "building.duckdb"
    assert carry_forward(None, building, history_tables(Settings())) == {
        table: 0 for table in history_tables(Settings())
    }
    for table, columns in history_tables(Settings()).items():
        described = _rows(
            building,
            f"select column_name, lower(data_type) from duckdb_columns()"
            f" where schema_name = 'history' and table_name = '{table}'",
        )
        assert [name for name, _ in described] == list(columns)


def test_the_published_release_and_its_history_are_carried(tmp_path: Path) -> None:
    published = _published(tmp_path / "published.duckdb")
    building = tmp_path / "building.duckdb"
    counts = carry_forward(published, building, history_tables(Settings()))
    assert counts == {
        "releases": 2,
        "model_scores": 2,
        "headline_metrics": 1,
        "dimension_scores": 1,
        "release_tasks": 0,
        "release_comparison": 0,
    }
    assert _rows(building, "select * from history.releases order by release_id") == [
        ("r1", "t1", "sha-1"),
        ("r2", "t2", "sha-2"),  # the stale r2 of its history is replaced by its own, latest record
    ]
    assert _rows(
        building,
        "select release_id, published_at, model_id, display_name, score, rank"
        " from history.model_scores order by release_id",
    ) == [
        ("r1", "t1", "m'1", None, 0.25, None),
        ("r2", "t2", "m'1", 'Model "1"', 0.5, 1),
    ]
    assert _rows(building, "select release_id, published_at, metric, value from history.headline_metrics") == [
        ("r2", "t2", "best_model_score", 0.5)
    ]
    assert _rows(building, "select release_id, dimension, n_tasks, score from history.dimension_scores") == [
        ("r2", "routing", None, 0.5)
    ]
    # the published file is read, not changed
    assert _rows(published, "select release_id, published_at from history.releases") == [("r1", "t1"), ("r2", "t0")]


def test_a_file_without_publication_records_still_gives_its_marts(tmp_path: Path) -> None:
    published = _published(tmp_path / "published.duckdb", with_meta=False, with_history=False)
    building = tmp_path / "building.duckdb"
    carry_forward(published, building, history_tables(Settings()))
    assert _rows(building, "select * from history.releases") == [("r2", None, None)]
    assert _rows(building, "select release_id, published_at, score from history.model_scores") == [("r2", None, 0.5)]


@pytest.mark.parametrize("name", ["it's; here.duckdb", 'ü "quoted".duckdb'])
def test_a_published_path_with_quotes_is_attached_safely(tmp_path: Path, name: str) -> None:
    published = _published(tmp_path / name)
    building = tmp_path / "building.duckdb"
    assert carry_forward(published, building, history_tables(Settings()))["model_scores"] == 2
