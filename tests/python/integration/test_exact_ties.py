"""Identical inputs give identical outputs: two models with the same cells on every task,
their rows shuffled, get bitwise-identical model, dimension, turn-type and subcategory
scores and share a rank (the mean used to depend on row order)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from distressbench.publish.pipeline import build_release
from distressbench.synth.config import SynthConfig
from distressbench.synth.generate import write_release
from fixtures.releases.writer import refresh_manifest

ORIGINAL, TWIN = "model-01", "model-03"


def _twin_release(root: Path) -> Path:
    """A synthetic release (60 tasks, 4 models) in which TWIN replies and is judged exactly
    as ORIGINAL, with every table's rows shuffled."""
    release = root / "release"
    write_release(release, SynthConfig(seed=7, n_tasks=60, n_models=4, judge_samples=3))
    rng = np.random.default_rng(11)
    responses = pq.read_table(release / "responses.parquet")
    by_task = {(row["task_id"], row["model_id"]): row for row in responses.to_pylist()}
    twin_of = {
        by_task[(task, ORIGINAL)]["response_id"]: by_task[(task, TWIN)]["response_id"]
        for task, model in by_task
        if model == ORIGINAL
    }
    rows = [
        row | {"content": by_task[(row["task_id"], ORIGINAL)]["content"]} if row["model_id"] == TWIN else row
        for row in responses.to_pylist()
    ]
    shuffled = [rows[i] for i in rng.permutation(len(rows))]
    pq.write_table(pa.Table.from_pylist(shuffled, schema=responses.schema), release / "responses.parquet")

    labels = pq.read_table(release / "judge_labels.parquet")
    twin_ids = set(twin_of.values())
    kept = labels.filter(pc.invert(pc.is_in(labels["response_id"], pa.array(sorted(twin_ids)))))
    copied = labels.filter(pc.is_in(labels["response_id"], pa.array(sorted(twin_of))))
    copied = copied.set_column(0, "response_id", pa.array([twin_of[r] for r in copied["response_id"].to_pylist()]))
    together = pa.concat_tables([kept, copied])
    pq.write_table(together.take(rng.permutation(together.num_rows)), release / "judge_labels.parquet")
    refresh_manifest(release)
    return release


def test_two_models_with_identical_cells_tie_exactly(tmp_path: Path) -> None:
    release = _twin_release(tmp_path)
    database, published = build_release(release, tmp_path / "warehouse.duckdb")
    assert published
    with duckdb.connect(str(database), read_only=True) as connection:

        def pair(sql: str) -> list[tuple[object, ...]]:
            return connection.execute(sql, [ORIGINAL, TWIN]).fetchall()

        cells = pair(
            "select task_id, list(score order by model_id) from marts.cell_scores"
            " where model_id in (?, ?) group by task_id"
        )
        assert len(cells) == 60 and all(a == b for _, (a, b) in cells)
        scores = pair("select model_id, score, rank from marts.model_scores where model_id in (?, ?) order by model_id")
        assert scores[0][1:] == scores[1][1:], scores  # the same double and the same rank
        for mart, key in (
            ("dimension_scores", "dimension"),
            ("turn_type_scores", "turn_type"),
            ("subcategory_scores", "subcategory"),
        ):
            rows = pair(
                f"select {key}, list(score order by model_id) from marts.{mart} where model_id in (?, ?) group by {key}"
            )
            assert rows and all(a == b for _, (a, b) in rows), (mart, rows)
