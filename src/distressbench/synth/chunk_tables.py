"""The tables written chunk by chunk: criteria, responses, judge_labels and
calibration_labels of one block of consecutive tasks."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from distressbench.release import contract
from distressbench.synth import ids, phrase_pools
from distressbench.synth.config import SynthConfig, rng_for
from distressbench.synth.labels import calibration_table, chunk_pairs, judge_table
from distressbench.synth.latent import DIMS, HARM, SUBCATEGORIES, Latent
from distressbench.synth.simulate import Chunk, Tasks
from distressbench.synth.text_assembly import BOUNDARY, reply_text

_SPECIFIC = list(phrase_pools.HARM_CRITERIA_BY_SUBCATEGORY.values())
_CRITERIA_POOL = pa.array([c for d in DIMS for c in phrase_pools.CRITERIA[d]] + _SPECIFIC, pa.string())
_CRITERIA_OFFSET = np.cumsum([0] + [len(phrase_pools.CRITERIA[d]) for d in DIMS])[:-1]
_CRITERIA_SIZE = np.array([len(phrase_pools.CRITERIA[d]) for d in DIMS])
_HARM_SPECIFIC = np.array(
    [
        sum(_CRITERIA_SIZE) + _SPECIFIC.index(phrase_pools.HARM_CRITERIA_BY_SUBCATEGORY[s])
        if s in phrase_pools.HARM_CRITERIA_BY_SUBCATEGORY
        else -1
        for s in SUBCATEGORIES
    ]
)


def chunk_tables(config: SynthConfig, latent: Latent, tasks: Tasks, chunk: Chunk, index: int) -> dict[str, pa.Table]:
    """criteria, responses, judge_labels and calibration_labels of one chunk of tasks."""
    task_ids = ids.task_ids(config, chunk.start, chunk.start + chunk.n_tasks)
    crit_ids = _criterion_ids(chunk, task_ids)
    resp_ids = _response_ids(config, chunk)
    rng_text = rng_for(config, 7, index)  # draws the criteria's texts, then the replies'
    criteria = _criteria_table(tasks, chunk, task_ids, crit_ids, rng_text)
    responses = _responses_table(config, tasks, chunk, task_ids, resp_ids, rng_text)
    pairs = chunk_pairs(config, chunk)
    judge_labels = judge_table(config, latent, index, pairs, resp_ids, crit_ids)
    calibration = calibration_table(config, latent, index, pairs, chunk.crit_dim, resp_ids, crit_ids)
    return {
        "criteria": criteria,
        "responses": responses,
        "judge_labels": judge_labels,
        "calibration_labels": calibration,
    }


def _criterion_ids(chunk: Chunk, task_ids: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise(
        task_ids.take(pa.array(chunk.crit_task)),
        pc.utf8_lpad(pc.cast(pa.array(chunk.crit_rank + 1), pa.string()), width=2, padding="0"),
        "-C",
    )


def _response_ids(config: SynthConfig, chunk: Chunk) -> pa.Array:
    """Task-major, like the responses: row r = task * n_replies + reply."""
    codes = pa.array(ids.model_codes(config) * chunk.n_tasks, pa.string())
    resp_task = np.repeat(np.arange(chunk.n_tasks), config.n_replies_per_task)
    suffix = pc.binary_join_element_wise("-", codes, "")
    return ids.numbered("R-", chunk.start + 1 + resp_task, ids.task_width(config), suffix)


def _criteria_table(
    tasks: Tasks, chunk: Chunk, task_ids: pa.Array, crit_ids: pa.Array, rng_text: np.random.Generator
) -> pa.Table:
    """Distinct texts within a (task, dimension), starting at a random phrase."""
    nt, start = chunk.n_tasks, chunk.start
    nc = chunk.crit_task.size
    rotate = rng_text.integers(0, 1 << 30, size=(nt, len(DIMS)))
    new_group = np.ones(nc, dtype=bool)
    new_group[1:] = (chunk.crit_task[1:] != chunk.crit_task[:-1]) | (chunk.crit_dim[1:] != chunk.crit_dim[:-1])
    group_start = np.maximum.accumulate(np.where(new_group, np.arange(nc), 0))
    dim_first = np.arange(nc) - group_start
    text_index = (
        _CRITERIA_OFFSET[chunk.crit_dim]
        + (rotate[chunk.crit_task, chunk.crit_dim] + dim_first) % _CRITERIA_SIZE[chunk.crit_dim]
    )
    specific = _HARM_SPECIFIC[tasks.subcategory[start + chunk.crit_task]]
    first_harm = (chunk.crit_dim == HARM) & (dim_first == 0) & (specific >= 0)
    text_index = np.where(first_harm, specific, text_index)
    return pa.table(
        {
            "criterion_id": crit_ids,
            "task_id": task_ids.take(pa.array(chunk.crit_task)),
            "dimension": pa.array(np.array(DIMS)[chunk.crit_dim], pa.string()),
            "weight": pa.array(chunk.crit_weight, pa.int32()),
            "text": _CRITERIA_POOL.take(pa.array(text_index)),
        },
        schema=contract.SCHEMAS["criteria"],
    )


def _responses_table(
    config: SynthConfig,
    tasks: Tasks,
    chunk: Chunk,
    task_ids: pa.Array,
    resp_ids: pa.Array,
    rng_text: np.random.Generator,
) -> pa.Table:
    """Task-major (row r = task * n_replies + reply); a reply speaks to the dimensions it meets."""
    nt, start = chunk.n_tasks, chunk.start
    n_rep = config.n_replies_per_task
    resp_task = np.repeat(np.arange(nt), n_rep)
    key = (np.arange(n_rep)[:, None] * nt + chunk.crit_task[None, :]) * len(DIMS) + chunk.crit_dim[None, :]
    met = np.bincount(key.ravel(), weights=chunk.verdict.ravel(), minlength=n_rep * nt * len(DIMS))
    met = met.reshape(n_rep, nt, len(DIMS)).transpose(1, 0, 2).reshape(nt * n_rep, len(DIMS))
    total = np.repeat(np.asarray(tasks.counts[start : start + nt]), n_rep, axis=0)
    include = (total > 0) & (2 * met >= total)
    harm_failed = (total[:, HARM] > 0) & ~include[:, HARM]
    boundary = BOUNDARY[tasks.subcategory[start + resp_task]]
    picks = rng_text.integers(0, 1 << 30, size=(nt * n_rep, 9))
    content = reply_text(include, harm_failed, boundary, picks)
    empty = chunk.empty.T.ravel()
    content = pc.if_else(pa.array(empty), "", content)
    return pa.table(
        {
            "response_id": resp_ids,
            "task_id": task_ids.take(pa.array(resp_task)),
            "model_id": pa.array(ids.model_ids(config) * nt, pa.string()),
            "content": content,
        },
        schema=contract.SCHEMAS["responses"],
    )
