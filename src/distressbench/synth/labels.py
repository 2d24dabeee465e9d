"""The labels on a chunk's (reply, criterion) pairs: judge samples scattered around the
verdict, and clinician labels on a random share of pairs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from distressbench.release import contract
from distressbench.synth.config import SynthConfig, rng_for
from distressbench.synth.latent import JUDGE_DISAGREEMENT, Latent
from distressbench.synth.simulate import Chunk


@dataclass(frozen=True)
class Pairs:
    """A chunk's (reply, criterion) pairs in task-major order: task, reply, criterion."""

    block: np.ndarray  # (n_pairs,) the pair's response row: task * n_replies + reply
    crit: np.ndarray  # (n_pairs,) the pair's criterion, indexing the chunk's criteria
    verdict: np.ndarray  # (n_pairs,) bool: the judge majority
    empty: np.ndarray  # (n_pairs,) bool: the reply is empty


def chunk_pairs(config: SynthConfig, chunk: Chunk) -> Pairs:
    """Every reply of a task paired with every criterion of that task."""
    nt = chunk.n_tasks
    n_rep = config.n_replies_per_task
    per_task = np.bincount(chunk.crit_task, minlength=nt)
    first = np.cumsum(per_task) - per_task
    block_task = np.repeat(np.arange(nt), n_rep)
    block_len = per_task[block_task]
    block_first = np.cumsum(block_len) - block_len
    n_pairs = int(block_len.sum())
    pair_block = np.repeat(np.arange(block_task.size), block_len)
    pair_crit = first[block_task][pair_block] + (np.arange(n_pairs) - block_first[pair_block])
    pair_reply = np.tile(np.arange(n_rep), nt)[pair_block]
    verdict = chunk.verdict[pair_reply, pair_crit]
    empty = chunk.empty.T.ravel()[pair_block]
    return Pairs(block=pair_block, crit=pair_crit, verdict=verdict, empty=empty)


def judge_table(
    config: SynthConfig, latent: Latent, index: int, pairs: Pairs, resp_ids: pa.Array, crit_ids: pa.Array
) -> pa.Table:
    """Judge samples scattered around the verdict; the majority (tie = unmet) equals it."""
    verdict = pairs.verdict
    rng = rng_for(config, 4, index)
    j = config.judge_samples
    labels = verdict[:, None] ^ (rng.random((verdict.size, j)) < latent.judge_flip)
    wrong = (2 * labels.sum(axis=1) > j) != verdict
    labels[wrong] = verdict[wrong, None]
    labels[pairs.empty] = False
    rows = np.repeat(np.arange(verdict.size), j)
    return pa.table(
        {
            "response_id": resp_ids.take(pa.array(pairs.block[rows])),
            "criterion_id": crit_ids.take(pa.array(pairs.crit[rows])),
            "judge_id": pa.repeat(pa.scalar("judge-a"), rows.size),
            "sample_index": pa.array(np.tile(np.arange(j, dtype=np.int32), verdict.size)),
            "met": pa.array(labels.ravel()),
        },
        schema=contract.SCHEMAS["judge_labels"],
    )


def _overrule_rate(latent: Latent, verdict: np.ndarray, dimension: np.ndarray) -> np.ndarray:
    """Per pair, how often the clinicians' truth differs from the judge's verdict."""
    return np.where(verdict, latent.truth_lenient, latent.truth_strict) * JUDGE_DISAGREEMENT[dimension]


def _calibrated_truth(
    config: SynthConfig, latent: Latent, rng: np.random.Generator, pairs: Pairs, crit_dim: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(chosen, truth): the calibrated pairs, a random share of the chunk's, and the clinicians'
    truth on them (near the verdict; an empty reply meets nothing)."""
    verdict = pairs.verdict
    chosen = np.flatnonzero(rng.random(verdict.size) < config.calibration_fraction)
    v = verdict[chosen]
    flip_truth = rng.random(chosen.size) < _overrule_rate(latent, v, crit_dim[pairs.crit[chosen]])
    return chosen, (v ^ flip_truth) & ~pairs.empty[chosen]


def clinician_truth(
    config: SynthConfig, latent: Latent, index: int, pairs: Pairs, crit_dim: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(truth, labelled) per pair of the chunk: the clinicians' truth on every pair, the one
    their labels scatter around (on the calibrated pairs, the very truth calibration_table
    draws; on the others, drawn alike from a stream of its own, so the release is unchanged),
    and whether the pair is calibrated. Never written into a release: what a simulation that
    knows every pair's truth (scripts/anchored_coverage.py) compares estimates with."""
    chosen, chosen_truth = _calibrated_truth(config, latent, rng_for(config, 8, index), pairs, crit_dim)
    rest = rng_for(config, 10, index)
    flip = rest.random(pairs.verdict.size) < _overrule_rate(latent, pairs.verdict, crit_dim[pairs.crit])
    truth = (pairs.verdict ^ flip) & ~pairs.empty
    truth[chosen] = chosen_truth
    labelled = np.zeros(pairs.verdict.size, dtype=bool)
    labelled[chosen] = True
    return truth, labelled


def calibration_table(
    config: SynthConfig,
    latent: Latent,
    index: int,
    pairs: Pairs,
    crit_dim: np.ndarray,
    resp_ids: pa.Array,
    crit_ids: pa.Array,
) -> pa.Table:
    """Clinician labels on a random share of pairs: a truth near the verdict, plus annotator noise."""
    empty = pairs.empty
    rng = rng_for(config, 8, index)
    chosen, truth = _calibrated_truth(config, latent, rng, pairs, crit_dim)
    a = config.n_annotators
    noise = np.array(latent.annotator_flip[:a])
    labels = truth[:, None] ^ (rng.random((chosen.size, a)) < noise[None, :])
    labels[empty[chosen]] = False
    present = np.ones((chosen.size, a), dtype=bool)
    if a > 1:
        skipped = rng.random(chosen.size) < latent.annotator_missing
        who = rng.integers(0, a, size=chosen.size)
        present[np.flatnonzero(skipped), who[skipped]] = False
    pair, annotator = np.nonzero(present)
    annotators = pa.array([f"clinician-{k + 1}" for k in range(a)], pa.string())
    return pa.table(
        {
            "response_id": resp_ids.take(pa.array(pairs.block[chosen][pair])),
            "criterion_id": crit_ids.take(pa.array(pairs.crit[chosen][pair])),
            "annotator_id": annotators.take(pa.array(annotator)),
            "met": pa.array(labels[pair, annotator]),
        },
        schema=contract.SCHEMAS["calibration_labels"],
    )
