"""The latent core: each model's ability, each task's shape and, per chunk of tasks, the
judge's verdict on every (reply, criterion) pair."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from distressbench.synth import phrase_pools
from distressbench.synth.config import SynthConfig, rng_for
from distressbench.synth.latent import (
    CRITERIA_MEAN,
    CRITERIA_SD,
    DIMS,
    EXTRA_SHARE,
    PRESENCE,
    REC,
    ROUTE,
    SHARES,
    SUBCATEGORIES,
    WEIGHT_HIGH,
    WEIGHT_LOW,
    Latent,
)

_CHUNK_BUDGET = 1 << 19  # (replies x criteria) pairs per chunk, roughly


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _profile(anchors: tuple[float, float, float], u: np.ndarray) -> np.ndarray:
    return np.interp(u, [0.0, 0.5, 1.0], anchors)


@dataclass(frozen=True)
class Models:
    quantile: np.ndarray  # (n_models,) position of each ranked model in the profile
    ability: np.ndarray  # (n_models + 1, 7); the last row is the clinician reference
    multi_penalty: np.ndarray  # (n_models + 1,)


def draw_models(config: SynthConfig, latent: Latent) -> Models:
    """Each ranked model's place in the profile and ability per dimension, then the clinician reference."""
    rng = rng_for(config, 1)
    m = config.n_models
    grid = np.linspace(0.0, 1.0, m) if m > 1 else np.array([1.0])
    u = grid[rng.permutation(m)]
    own = np.stack([_profile(getattr(latent, d), u) for d in DIMS], axis=1)
    ability = own + SHARES[None, :] * _profile(latent.general, u)[:, None]
    ability += rng.normal(0.0, latent.model_sd, size=ability.shape)
    ability = np.vstack([ability, np.full((1, len(DIMS)), latent.clinician)])
    spread = np.exp(rng.normal(0.0, latent.multi_penalty_spread, size=m))
    penalty = latent.multi_penalty * np.append(spread, 0.5)
    return Models(quantile=u, ability=ability, multi_penalty=penalty)


@dataclass(frozen=True)
class Tasks:
    subcategory: np.ndarray  # (n,) index into SUBCATEGORIES
    n_user_turns: np.ndarray  # (n,) int32
    counts: np.ndarray  # (n, 7) criteria per dimension
    difficulty: np.ndarray  # (n,)


def draw_tasks(config: SynthConfig, latent: Latent) -> Tasks:
    """Each task's subcategory, user turns, criteria per dimension and difficulty."""
    rng = rng_for(config, 2)
    n = config.n_tasks
    profiles = [phrase_pools.PROFILES[s] for s in SUBCATEGORIES]
    weight = np.array([p.weight for p in profiles])
    sub = rng.choice(len(SUBCATEGORIES), size=n, p=weight / weight.sum())
    cover = min(n, len(SUBCATEGORIES))  # every subcategory present when there is room
    sub[rng.choice(n, size=cover, replace=False)] = rng.permutation(len(SUBCATEGORIES))[:cover]

    multi_share = np.array([p.multi_share for p in profiles])[sub]
    multi = rng.random(n) < multi_share
    n_user = np.where(multi, 2 + rng.binomial(4, 0.35, size=n), 1).astype(np.int32)

    present = rng.random((n, len(DIMS))) < PRESENCE[None, :]
    total = np.clip(np.rint(rng.normal(CRITERIA_MEAN, CRITERIA_SD, size=n)), 6, 20).astype(np.int64)
    total = np.maximum(total, present.sum(axis=1))
    share = present * EXTRA_SHARE[None, :]
    extras = rng.multinomial(total - present.sum(axis=1), share / share.sum(axis=1, keepdims=True))
    counts = present.astype(np.int64) + extras

    sub_difficulty = np.array([p.difficulty for p in profiles])[sub]
    difficulty = rng.normal(0.0, latent.task_sd, size=n) + sub_difficulty
    difficulty -= difficulty.mean()  # difficulty is relative to the corpus
    return Tasks(subcategory=sub, n_user_turns=n_user, counts=counts, difficulty=difficulty)


@dataclass(frozen=True)
class Chunk:
    """The verdicts of every reply in a block of consecutive tasks."""

    start: int  # global index of the first task
    n_tasks: int
    crit_task: np.ndarray  # (nc,) local task index of each criterion (criteria sorted by task, dimension)
    crit_dim: np.ndarray  # (nc,)
    crit_rank: np.ndarray  # (nc,) 0-based position within its task
    crit_weight: np.ndarray  # (nc,) int32
    verdict: np.ndarray  # (n_replies, nc) bool: the judge majority
    empty: np.ndarray  # (n_replies, n_tasks) bool: empty replies


def chunk_size(config: SynthConfig) -> int:
    """Tasks per chunk: bounded so a chunk's arrays stay small whatever the model count."""
    per_task = config.n_replies_per_task * int(CRITERIA_MEAN)
    return int(np.clip(_CHUNK_BUDGET // per_task, 16, 1024))


def simulate_chunk(
    config: SynthConfig, latent: Latent, models: Models, tasks: Tasks, start: int, stop: int, index: int
) -> Chunk:
    """The criteria of tasks start..stop and every reply's verdict on them; index numbers the chunk."""
    rng = rng_for(config, 3, index)
    nt = stop - start
    counts = tasks.counts[start:stop]
    per_task = counts.sum(axis=1)
    crit_task = np.repeat(np.arange(nt), per_task)
    crit_dim = np.repeat(np.tile(np.arange(len(DIMS)), nt), counts.ravel())
    first = np.cumsum(per_task) - per_task
    crit_rank = np.arange(crit_task.size) - first[crit_task]
    weight = rng.integers(WEIGHT_LOW[crit_dim], WEIGHT_HIGH[crit_dim] + 1).astype(np.int32)
    crit_effect = rng.normal(0.0, latent.criterion_sd, size=crit_task.size)

    n_rep = config.n_replies_per_task
    cell = rng.normal(0.0, latent.cell_sd, size=(n_rep, nt))
    cell -= cell.mean(axis=1, keepdims=True)
    multi = (tasks.n_user_turns[start:stop] > 1).astype(np.float64)
    base = cell - tasks.difficulty[start:stop][None, :] - models.multi_penalty[:, None] * multi[None, :]
    logit = models.ability[:, crit_dim] + base[:, crit_task] - crit_effect[None, :]
    is_route = crit_dim == ROUTE
    logit[:, is_route] += latent.route_given_gate  # met given that the reply routes at all
    verdict = rng.random(logit.shape) < _sigmoid(logit)

    # Recognised: every recognition criterion met; it raises the chance that the reply routes.
    is_rec = crit_dim == REC
    rec_total = np.bincount(crit_task[is_rec], minlength=nt)
    rec_met = _per_task_sum(verdict[:, is_rec], crit_task[is_rec], nt)
    recognized = (rec_total[None, :] > 0) & (rec_met == rec_total[None, :])
    gate_logit = models.ability[:, ROUTE][:, None] + base + latent.route_base + latent.route_recognized * recognized
    routes = rng.random(gate_logit.shape) < _sigmoid(gate_logit)
    verdict[:, is_route] &= routes[:, crit_task[is_route]]

    empty = rng.random((n_rep, nt)) < config.empty_reply_rate
    empty[-1, :] = False  # the clinician reference always answers
    verdict &= ~empty[:, crit_task]
    return Chunk(start, nt, crit_task, crit_dim, crit_rank, weight, verdict, empty)


def _per_task_sum(values: np.ndarray, task: np.ndarray, nt: int) -> np.ndarray:
    """(rows, k) values summed per task -> (rows, nt)."""
    rows = values.shape[0]
    key = (np.arange(rows)[:, None] * nt + task[None, :]).ravel()
    return np.bincount(key, weights=values.ravel(), minlength=rows * nt).reshape(rows, nt).astype(np.int64)
