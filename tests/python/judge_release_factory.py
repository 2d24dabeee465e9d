"""A release for the judge-reliability tests, generated here with numpy, independent of the
project's synthetic generator.

It starts from the hand-built fixture (release_factory: ids with quotes, semicolons and
Unicode, 4 ranked models and the clinician reference, one empty reply) and replaces:

- responses: a second empty reply, white space only (WHITESPACE_REPLY);
- judge labels from three judges (JUDGES), each with 1-3 samples per pair: judge 0 labels
  sample 0 of every pair and samples 1 and 2 of some (so judge 0 alone and its sample 0
  cover every pair, its samples 1 and 2 do not); judge 1 labels samples 0 (every pair) and
  1 (some); judge 2 labels only some pairs, with 1-3 samples. Labels are random around a
  per-model rate, so pairs tie, agree and disagree. Model 1 copies model 0's labels, so
  the two tie under every subset of the labels and in the published scores;
- calibration labels: 1-3 annotators on about half the pairs of every task.

`make_judge_release` writes it (deterministic for a seed).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from distressbench.release import contract
from distressbench.release.manifest import write_manifest
from release_factory import (
    CREATED_AT,
    CRITERIA_PER_TASK,
    EMPTY_REPLY,
    TASK_IDS,
    build_tables,
    criterion_id,
    model_ids,
    response_id,
)

JUDGES: tuple[str, ...] = ("judge-ä'", 'judge-"b";', "judge-c")
ANNOTATORS: tuple[str, ...] = ("ann-1", "ann-2'", "ann-3")
# (model index, task index) whose reply is white space only.
WHITESPACE_REPLY = (2, 4)
# model index -> the model whose labels it copies
COPIES = {1: 0}
_RATES = (0.7, 0.7, 0.55, 0.4, 0.9)


def _pairs() -> list[tuple[int, int, int]]:
    return [
        (m, t, k) for m in range(len(model_ids())) for t in range(len(TASK_IDS)) for k in range(CRITERIA_PER_TASK[t])
    ]


def _samples(rng: np.random.Generator) -> dict[int, list[int]]:
    """judge index -> the sample indices it labels on one pair."""
    samples = {0: [0] + [s for s in (1, 2) if rng.random() < 0.5], 1: [0] + ([1] if rng.random() < 0.6 else [])}
    if rng.random() < 0.5:
        samples[2] = sorted(rng.choice(3, size=int(rng.integers(1, 4)), replace=False).tolist())
    return samples


def _judge_labels(rng: np.random.Generator) -> pa.Table:
    columns = ("response_id", "criterion_id", "judge_id", "sample_index", "met")
    rows: dict[str, list[object]] = {c: [] for c in columns}
    drawn: dict[tuple[int, int, int], list[tuple[int, int, bool]]] = {}
    for m, t, k in _pairs():
        source = COPIES.get(m)
        if source is not None:
            labels = drawn[(source, t, k)]
        else:
            rate = float(np.clip(_RATES[m] + rng.normal(0, 0.2), 0.05, 0.95))
            labels = [
                (j, s, bool(rng.random() < rate)) for j, samples in sorted(_samples(rng).items()) for s in samples
            ]
        drawn[(m, t, k)] = labels
        for j, s, met in labels:
            rows["response_id"].append(response_id(m, t))
            rows["criterion_id"].append(criterion_id(t, k))
            rows["judge_id"].append(JUDGES[j])
            rows["sample_index"].append(s)
            rows["met"].append(met)
    return pa.table(rows, schema=contract.SCHEMAS["judge_labels"])


def _calibration_labels(rng: np.random.Generator) -> pa.Table:
    rows: dict[str, list[object]] = {"response_id": [], "criterion_id": [], "annotator_id": [], "met": []}
    for m, t, k in _pairs():
        if rng.random() < 0.5:
            continue
        rate = _RATES[m]
        for a in range(int(rng.integers(1, 4))):
            rows["response_id"].append(response_id(m, t))
            rows["criterion_id"].append(criterion_id(t, k))
            rows["annotator_id"].append(ANNOTATORS[a])
            rows["met"].append(bool(rng.random() < rate))
    return pa.table(rows, schema=contract.SCHEMAS["calibration_labels"])


def _responses(base: pa.Table) -> pa.Table:
    whitespace = response_id(*WHITESPACE_REPLY)
    ids, texts = base["response_id"].to_pylist(), base["content"].to_pylist()
    contents = [" \n\t " if rid == whitespace else c for rid, c in zip(ids, texts, strict=True)]
    return base.set_column(base.schema.get_field_index("content"), "content", pa.array(contents, pa.string()))


def make_judge_release(out_dir: Path, *, seed: int = 11, release_id: str = "judge-fixture-1") -> Path:
    """Write the release (Parquet files + manifest.json) into out_dir; returns it."""
    assert WHITESPACE_REPLY != EMPTY_REPLY
    rng = np.random.default_rng(seed)
    tables = build_tables()
    tables["responses"] = _responses(tables["responses"])
    tables["judge_labels"] = _judge_labels(rng)
    tables["calibration_labels"] = _calibration_labels(rng)
    out_dir.mkdir(parents=True, exist_ok=True)
    for table, data in tables.items():
        pq.write_table(data, out_dir / contract.file_name(table))
    write_manifest(out_dir, release_id, synthetic=True, created_at=CREATED_AT)
    return out_dir
