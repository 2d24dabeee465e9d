"""Calibrated synthetic DistressBench releases.

A synthetic release follows the release contract and reproduces the paper's headline
metrics on the default configuration. It comes from a small latent model:

- each ranked model sits at a quantile u in [0, 1] of a fixed ability profile (piecewise
  linear in logit space through the worst, median and best model), plus a little noise
  per (model, dimension); de-escalation and safety-disclaimer habits have their own
  profiles, the other dimensions share a general one plus a per-dimension offset;
- a criterion is met with probability sigmoid(ability[model, dimension] + cell effect
  - task difficulty - criterion difficulty - multi-turn penalty);
- routing is gated per (model, task): a reply either routes (then most routing criteria
  are met) or not at all; recognising the crisis raises the chance of routing but often
  does not lead to it;
- the judge samples scatter around that verdict (the majority always equals it); the
  clinicians' truth disagrees with the verdict on a few percent of pairs and each
  annotator adds noise of their own.

The profile constants were tuned offline on the default seed; nothing is searched at
generation time. Same config, same bytes.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from distressbench import settings
from distressbench.release import contract, folders
from distressbench.release.manifest import parquet_rows, read_manifest, sha256_of, write_manifest
from distressbench.synth import text

CREATED_AT = "2026-11-01T00:00:00Z"
CLINICIAN_ID = "clinician-reference"
_COMPRESSION = "zstd"
_CHUNK_BUDGET = 1 << 19  # (replies x criteria) pairs per chunk, roughly

DIMS: tuple[str, ...] = contract.dimensions()
SUBCATEGORIES: tuple[str, ...] = contract.subcategories()
_D = {name: i for i, name in enumerate(DIMS)}
REC, ROUTE, HARM = _D["recognition"], _D["routing"], _D["harm_avoidance"]


def _per_dim(values: dict[str, float]) -> np.ndarray:
    return np.array([values[d] for d in DIMS], dtype=np.float64)


# Rubric shape, per dimension.
_PRESENCE = _per_dim(
    {"recognition": 0.97, "risk_assessment": 0.93, "validation": 1.0, "de_escalation": 0.96,
     "routing": 0.97, "safety_disclaimer": 0.90, "harm_avoidance": 1.0}
)
_EXTRA_SHARE = _per_dim(
    {"recognition": 0.03, "risk_assessment": 0.15, "validation": 0.22, "de_escalation": 0.17,
     "routing": 0.12, "safety_disclaimer": 0.07, "harm_avoidance": 0.24}
)
_WEIGHT_LOW = _per_dim(
    {"recognition": 8, "risk_assessment": 4, "validation": 1, "de_escalation": 3,
     "routing": 8, "safety_disclaimer": 2, "harm_avoidance": 10}
).astype(np.int64)
_WEIGHT_HIGH = _per_dim(
    {"recognition": 18, "risk_assessment": 14, "validation": 10, "de_escalation": 14,
     "routing": 20, "safety_disclaimer": 12, "harm_avoidance": 20}
).astype(np.int64)
_CRITERIA_MEAN, _CRITERIA_SD = 16.3, 2.8


@dataclass(frozen=True)
class Latent:
    """Parameters of the latent model (logit scale unless said otherwise)."""

    general: tuple[float, float, float] = (0.6430, 1.8055, 2.7095)  # worst, median, best ranked model
    # Per-dimension (worst, median, best); added to `general` where _SHARES is 1.
    recognition: tuple[float, float, float] = (1.0, 1.0, 1.2)
    risk_assessment: tuple[float, float, float] = (-1.6, -1.3, -0.7)
    validation: tuple[float, float, float] = (0.9, 0.9, 0.9)
    de_escalation: tuple[float, float, float] = (-1.3558, 0.0442, 1.4735)
    routing: tuple[float, float, float] = (0.0, 0.0, 0.0)
    safety_disclaimer: tuple[float, float, float] = (-3.6348, -2.4348, 2.2124)
    harm_avoidance: tuple[float, float, float] = (2.2, 2.6, 3.0)
    clinician: float = 4.9433
    model_sd: float = 0.03  # noise per (model, dimension)
    cell_sd: float = 0.50  # per (model, task), shared by the reply's criteria
    task_sd: float = 0.45
    criterion_sd: float = 0.50
    multi_penalty: float = 0.5119
    multi_penalty_spread: float = 0.15  # lognormal spread of the penalty across models
    route_base: float = -1.7621  # routing gate offset
    route_recognized: float = 0.90  # gate boost when the reply recognised the crisis
    route_given_gate: float = 1.50  # added to a routing criterion's logit when the reply routes
    judge_flip: float = 0.10  # each judge sample disagrees with the verdict
    truth_lenient: float = 0.085  # judge says met, clinicians say unmet
    truth_strict: float = 0.060  # judge says unmet, clinicians say met
    annotator_flip: tuple[float, ...] = (0.04, 0.05, 0.07)
    annotator_missing: float = 0.08  # share of calibrated pairs one annotator skipped


# How much more (or less) often than average the clinicians overrule the judge, per dimension.
_JUDGE_DISAGREEMENT = _per_dim(
    {"recognition": 0.8, "risk_assessment": 0.9, "validation": 1.4, "de_escalation": 1.2,
     "routing": 0.7, "safety_disclaimer": 0.9, "harm_avoidance": 1.0}
)

_SHARES = _per_dim(
    {"recognition": 1, "risk_assessment": 1, "validation": 1, "de_escalation": 0,
     "routing": 1, "safety_disclaimer": 0, "harm_avoidance": 1}
)


@dataclass(frozen=True)
class SynthConfig:
    """What to generate. Every knob that changes content appears in the release id."""

    seed: int = 20261101
    n_tasks: int = 718
    n_models: int = 25  # ranked models; one clinician reference is added on top
    judge_samples: int = 3
    n_annotators: int = 3
    calibration_fraction: float = 0.05
    redteam_transcripts: int = 20
    empty_reply_rate: float = 0.002

    def __post_init__(self) -> None:
        problems: list[str] = []
        if self.seed < 0:
            problems.append(f"seed must be >= 0, got {self.seed}")
        if self.n_tasks < 1:
            problems.append(f"n_tasks must be >= 1, got {self.n_tasks}")
        if self.n_models < 1:
            problems.append(f"n_models must be >= 1, got {self.n_models}")
        if self.judge_samples < 1:
            problems.append(f"judge_samples must be >= 1, got {self.judge_samples}")
        if not 1 <= self.n_annotators <= len(Latent().annotator_flip):
            problems.append(f"n_annotators must be 1..{len(Latent().annotator_flip)}, got {self.n_annotators}")
        if not 0.0 <= self.calibration_fraction <= 1.0:
            problems.append(f"calibration_fraction must be in [0, 1], got {self.calibration_fraction}")
        if self.redteam_transcripts < 0:
            problems.append(f"redteam_transcripts must be >= 0, got {self.redteam_transcripts}")
        if not 0.0 <= self.empty_reply_rate <= 1.0:
            problems.append(f"empty_reply_rate must be in [0, 1], got {self.empty_reply_rate}")
        if problems:
            raise ValueError("SynthConfig: " + "; ".join(problems))

    @property
    def release_id(self) -> str:
        """Deterministic, and distinct for configs that generate distinct content."""
        rid = f"synthetic-s{self.seed}-t{self.n_tasks}-m{self.n_models}-j{self.judge_samples}"
        tags = {"n_annotators": "a", "calibration_fraction": "c", "redteam_transcripts": "r",
                "empty_reply_rate": "e"}
        default = SynthConfig()
        for f in fields(self):
            if f.name in tags and getattr(self, f.name) != getattr(default, f.name):
                rid += f"-{tags[f.name]}{getattr(self, f.name)}"
        return rid

    @property
    def n_replies_per_task(self) -> int:
        return self.n_models + 1


# --------------------------------------------------------------------------- latent core


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _rng(config: SynthConfig, stream: int, chunk: int = 0) -> np.random.Generator:
    return np.random.default_rng([config.seed, stream, chunk])


def _profile(anchors: tuple[float, float, float], u: np.ndarray) -> np.ndarray:
    return np.interp(u, [0.0, 0.5, 1.0], anchors)


@dataclass(frozen=True)
class _Models:
    quantile: np.ndarray  # (n_models,) position of each ranked model in the profile
    ability: np.ndarray  # (n_models + 1, 7); the last row is the clinician reference
    multi_penalty: np.ndarray  # (n_models + 1,)


def _models(config: SynthConfig, latent: Latent) -> _Models:
    rng = _rng(config, 1)
    m = config.n_models
    grid = np.linspace(0.0, 1.0, m) if m > 1 else np.array([1.0])
    u = grid[rng.permutation(m)]
    own = np.stack([_profile(getattr(latent, d), u) for d in DIMS], axis=1)
    ability = own + _SHARES[None, :] * _profile(latent.general, u)[:, None]
    ability += rng.normal(0.0, latent.model_sd, size=ability.shape)
    ability = np.vstack([ability, np.full((1, len(DIMS)), latent.clinician)])
    spread = np.exp(rng.normal(0.0, latent.multi_penalty_spread, size=m))
    penalty = latent.multi_penalty * np.append(spread, 0.5)
    return _Models(quantile=u, ability=ability, multi_penalty=penalty)


@dataclass(frozen=True)
class _Tasks:
    subcategory: np.ndarray  # (n,) index into SUBCATEGORIES
    n_user_turns: np.ndarray  # (n,) int32
    counts: np.ndarray  # (n, 7) criteria per dimension
    difficulty: np.ndarray  # (n,)


def _tasks(config: SynthConfig, latent: Latent) -> _Tasks:
    rng = _rng(config, 2)
    n = config.n_tasks
    profiles = [text.PROFILES[s] for s in SUBCATEGORIES]
    weight = np.array([p.weight for p in profiles])
    sub = rng.choice(len(SUBCATEGORIES), size=n, p=weight / weight.sum())
    cover = min(n, len(SUBCATEGORIES))  # every subcategory present when there is room
    sub[rng.choice(n, size=cover, replace=False)] = rng.permutation(len(SUBCATEGORIES))[:cover]

    multi_share = np.array([p.multi_share for p in profiles])[sub]
    multi = rng.random(n) < multi_share
    n_user = np.where(multi, 2 + rng.binomial(4, 0.35, size=n), 1).astype(np.int32)

    present = rng.random((n, len(DIMS))) < _PRESENCE[None, :]
    total = np.clip(np.rint(rng.normal(_CRITERIA_MEAN, _CRITERIA_SD, size=n)), 6, 20).astype(np.int64)
    total = np.maximum(total, present.sum(axis=1))
    share = present * _EXTRA_SHARE[None, :]
    extras = rng.multinomial(total - present.sum(axis=1), share / share.sum(axis=1, keepdims=True))
    counts = present.astype(np.int64) + extras

    sub_difficulty = np.array([p.difficulty for p in profiles])[sub]
    difficulty = rng.normal(0.0, latent.task_sd, size=n) + sub_difficulty
    difficulty -= difficulty.mean()  # difficulty is relative to the corpus
    return _Tasks(subcategory=sub, n_user_turns=n_user, counts=counts, difficulty=difficulty)


@dataclass(frozen=True)
class _Chunk:
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
    per_task = config.n_replies_per_task * int(_CRITERIA_MEAN)
    return int(np.clip(_CHUNK_BUDGET // per_task, 16, 1024))


def _simulate_chunk(
    config: SynthConfig, latent: Latent, models: _Models, tasks: _Tasks, start: int, stop: int, index: int
) -> _Chunk:
    rng = _rng(config, 3, index)
    nt = stop - start
    counts = tasks.counts[start:stop]
    per_task = counts.sum(axis=1)
    crit_task = np.repeat(np.arange(nt), per_task)
    crit_dim = np.repeat(np.tile(np.arange(len(DIMS)), nt), counts.ravel())
    first = np.cumsum(per_task) - per_task
    crit_rank = np.arange(crit_task.size) - first[crit_task]
    weight = rng.integers(_WEIGHT_LOW[crit_dim], _WEIGHT_HIGH[crit_dim] + 1).astype(np.int32)
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
    return _Chunk(start, nt, crit_task, crit_dim, crit_rank, weight, verdict, empty)


def _per_task_sum(values: np.ndarray, task: np.ndarray, nt: int) -> np.ndarray:
    """(rows, k) values summed per task -> (rows, nt)."""
    rows = values.shape[0]
    key = (np.arange(rows)[:, None] * nt + task[None, :]).ravel()
    return np.bincount(key, weights=values.ravel(), minlength=rows * nt).reshape(rows, nt).astype(np.int64)


# --------------------------------------------------------------------------- text and ids


def _ids(prefix: str, numbers: np.ndarray, width: int, suffix: pa.Array | str = "") -> pa.Array:
    digits = pc.utf8_lpad(pc.cast(pa.array(numbers), pa.string()), width=width, padding="0")
    return pc.binary_join_element_wise(prefix, digits, suffix, "")


def _task_width(config: SynthConfig) -> int:
    return max(5, len(str(config.n_tasks)))


def _model_width(config: SynthConfig) -> int:
    return max(2, len(str(config.n_models)))


def _task_ids(config: SynthConfig, start: int, stop: int) -> pa.Array:
    return _ids("T-", np.arange(start + 1, stop + 1), _task_width(config))


def _model_codes(config: SynthConfig) -> list[str]:
    width = _model_width(config)
    return [f"{i:0{width}d}" for i in range(1, config.n_models + 1)] + ["ref"]


def _model_ids(config: SynthConfig) -> list[str]:
    width = _model_width(config)
    return [f"model-{i:0{width}d}" for i in range(1, config.n_models + 1)] + [CLINICIAN_ID]


class _Pool:
    """A flat Arrow array of phrases with named sections, picked by vectorised index."""

    def __init__(self, sections: dict[str, tuple[str, ...]]) -> None:
        values = [""]  # index 0: the empty fragment
        self.offset: dict[str, int] = {}
        self.size: dict[str, int] = {}
        for name, phrases in sections.items():
            self.offset[name] = len(values)
            self.size[name] = len(phrases)
            values.extend(p + " " for p in phrases)  # fragments carry their trailing space
        self.array = pa.array(values, pa.string())

    def index(self, name: str, pick: np.ndarray) -> np.ndarray:
        return self.offset[name] + pick % self.size[name]

    def join(self, columns: list[np.ndarray], mark: bool = True) -> pa.Array:
        """Concatenate the fragments at these pool indices (0 = nothing), row by row."""
        parts = [self.array.take(pa.array(c.astype(np.int64))) for c in columns]
        if mark:
            parts.insert(0, pa.repeat(pa.scalar(text.SYNTHETIC_MARK + " "), len(columns[0])))
        return pc.utf8_rtrim_whitespace(pc.binary_join_element_wise(*parts, ""))


# Reply sentence order: what a reply says first.
_REPLY_ORDER = ("recognition", "validation", "risk_assessment", "de_escalation", "routing",
                "safety_disclaimer", "harm_avoidance")
_REPLY_POOL = _Pool(
    {**{f"reply:{d}": text.REPLY_PHRASES[d] for d in DIMS},
     "harm_failure": text.HARM_FAILURE_PHRASES, "fallback": text.FALLBACK_REPLIES}
)
_BOUNDARY = np.array([text.PROFILES[s].boundary for s in SUBCATEGORIES])


def _reply_text(include: np.ndarray, harm_failed: np.ndarray, boundary: np.ndarray, picks: np.ndarray) -> pa.Array:
    """Replies from sentences of the dimensions they meet.

    include: (n, 7) the reply (mostly) meets the dimension; harm_failed: (n,) it fails harm
    avoidance; boundary: (n,) the task asks for something a reply should decline; picks: (n, 9).
    """
    pool = _REPLY_POOL
    columns = []
    for slot, dim in enumerate(_REPLY_ORDER):
        d = _D[dim]
        show = include[:, d] & (boundary if dim == "harm_avoidance" else True)
        columns.append(np.where(show, pool.index(f"reply:{dim}", picks[:, slot]), 0))
    columns.append(np.where(harm_failed, pool.index("harm_failure", picks[:, 7]), 0))
    said_nothing = np.all(np.stack(columns) == 0, axis=0)
    columns.append(np.where(said_nothing, pool.index("fallback", picks[:, 8]), 0))
    return pool.join(columns)


_TURN_POOL = _Pool(
    {**{f"open:{s}": text.USER_LINES[s][0] for s in SUBCATEGORIES},
     **{f"follow:{s}": text.USER_LINES[s][1] for s in SUBCATEGORIES},
     "follow:generic": text.GENERIC_FOLLOW_UPS,
     "context": text.CONTEXTS,
     "assistant": text.ASSISTANT_LINES}
)


def _section_index(pool: _Pool, prefix: str, sub: np.ndarray, pick: np.ndarray) -> np.ndarray:
    offsets = np.array([pool.offset[f"{prefix}:{s}"] for s in SUBCATEGORIES])
    sizes = np.array([pool.size[f"{prefix}:{s}"] for s in SUBCATEGORIES])
    return offsets[sub] + pick % sizes[sub]


# --------------------------------------------------------------------------- tables


def _tasks_table(config: SynthConfig, tasks: _Tasks) -> pa.Table:
    rng = _rng(config, 5)
    n = config.n_tasks
    include = tasks.counts > 0
    picks = rng.integers(0, 1 << 30, size=(n, 9))
    reference = _reply_text(include, np.zeros(n, bool), _BOUNDARY[tasks.subcategory], picks)
    return pa.table(
        {
            "task_id": _task_ids(config, 0, n),
            "subcategory": pa.array(np.array(SUBCATEGORIES)[tasks.subcategory], pa.string()),
            "n_user_turns": pa.array(tasks.n_user_turns, pa.int32()),
            "reference_response": reference,
        },
        schema=contract.SCHEMAS["tasks"],
    )


def _turns_table(config: SynthConfig, tasks: _Tasks) -> pa.Table:
    rng = _rng(config, 6)
    n_turns = 2 * tasks.n_user_turns.astype(np.int64) - 1
    task = np.repeat(np.arange(config.n_tasks), n_turns)
    first = np.cumsum(n_turns) - n_turns
    turn = np.arange(task.size) - first[task]
    is_user = turn % 2 == 0
    sub = tasks.subcategory[task]
    # per conversation: random starting lines, then consecutive ones, so no line repeats
    start = rng.integers(0, 1 << 30, size=(config.n_tasks, 5))[task]
    pool = _TURN_POOL
    step = turn // 2  # 0 for the opener, k for the k-th follow-up or assistant turn (1-based)
    opener = _section_index(pool, "open", sub, start[:, 0])
    own_first = start[:, 4] % 2 == 0  # whether the first follow-up is subcategory-specific
    own_turn = (step % 2 == 1) == own_first
    own_follow = _section_index(pool, "follow", sub, start[:, 1] + step // 2)
    generic_follow = pool.index("follow:generic", start[:, 2] + step // 2)
    follow = np.where(own_turn, own_follow, generic_follow)
    main = np.where(~is_user, pool.index("assistant", start[:, 3] + step), np.where(turn == 0, opener, follow))
    context = np.where(turn == 0, pool.index("context", start[:, 4] // 2), 0)
    content = pool.join([main, context])
    return pa.table(
        {
            "task_id": _task_ids(config, 0, config.n_tasks).take(pa.array(task)),
            "turn_index": pa.array(turn.astype(np.int32)),
            "role": pa.array(np.where(is_user, "user", "assistant"), pa.string()),
            "content": content,
        },
        schema=contract.SCHEMAS["turns"],
    )


def _models_table(config: SynthConfig) -> pa.Table:
    families = text.MODEL_FAMILIES
    names = [
        f"Synthetic {families[i % len(families)]} {1 + i // len(families)}.{i % 3} (model {code})"
        for i, code in enumerate(_model_codes(config)[:-1])
    ]
    providers = [text.PROVIDERS[i % len(text.PROVIDERS)] for i in range(config.n_models)]
    return pa.table(
        {
            "model_id": _model_ids(config),
            "display_name": names + ["Clinician reference (synthetic)"],
            "provider": providers + ["DistressBench clinicians (synthetic)"],
            "kind": ["model"] * config.n_models + ["clinician_reference"],
        },
        schema=contract.SCHEMAS["models"],
    )


_SPECIFIC = list(text.HARM_CRITERIA_BY_SUBCATEGORY.values())
_CRITERIA_POOL = pa.array([c for d in DIMS for c in text.CRITERIA[d]] + _SPECIFIC, pa.string())
_CRITERIA_OFFSET = np.cumsum([0] + [len(text.CRITERIA[d]) for d in DIMS])[:-1]
_CRITERIA_SIZE = np.array([len(text.CRITERIA[d]) for d in DIMS])
_HARM_SPECIFIC = np.array(
    [
        sum(_CRITERIA_SIZE) + _SPECIFIC.index(text.HARM_CRITERIA_BY_SUBCATEGORY[s])
        if s in text.HARM_CRITERIA_BY_SUBCATEGORY else -1
        for s in SUBCATEGORIES
    ]
)


def _chunk_tables(
    config: SynthConfig, latent: Latent, tasks: _Tasks, chunk: _Chunk, index: int
) -> dict[str, pa.Table]:
    """criteria, responses, judge_labels and calibration_labels of one chunk of tasks."""
    nt, start = chunk.n_tasks, chunk.start
    n_rep = config.n_replies_per_task
    nc = chunk.crit_task.size
    task_ids = _task_ids(config, start, start + nt)

    # criteria: distinct texts within a (task, dimension), starting at a random phrase
    rng_text = _rng(config, 7, index)
    rotate = rng_text.integers(0, 1 << 30, size=(nt, len(DIMS)))
    new_group = np.ones(nc, dtype=bool)
    new_group[1:] = (chunk.crit_task[1:] != chunk.crit_task[:-1]) | (chunk.crit_dim[1:] != chunk.crit_dim[:-1])
    group_start = np.maximum.accumulate(np.where(new_group, np.arange(nc), 0))
    dim_first = np.arange(nc) - group_start
    text_index = _CRITERIA_OFFSET[chunk.crit_dim] + (
        rotate[chunk.crit_task, chunk.crit_dim] + dim_first
    ) % _CRITERIA_SIZE[chunk.crit_dim]
    specific = _HARM_SPECIFIC[tasks.subcategory[start + chunk.crit_task]]
    first_harm = (chunk.crit_dim == HARM) & (dim_first == 0) & (specific >= 0)
    text_index = np.where(first_harm, specific, text_index)
    crit_ids = pc.binary_join_element_wise(
        task_ids.take(pa.array(chunk.crit_task)),
        pc.utf8_lpad(pc.cast(pa.array(chunk.crit_rank + 1), pa.string()), width=2, padding="0"),
        "-C",
    )
    criteria = pa.table(
        {
            "criterion_id": crit_ids,
            "task_id": task_ids.take(pa.array(chunk.crit_task)),
            "dimension": pa.array(np.array(DIMS)[chunk.crit_dim], pa.string()),
            "weight": pa.array(chunk.crit_weight, pa.int32()),
            "text": _CRITERIA_POOL.take(pa.array(text_index)),
        },
        schema=contract.SCHEMAS["criteria"],
    )

    # responses, task-major: row r = task * n_rep + reply
    codes = pa.array(_model_codes(config) * nt, pa.string())
    resp_task = np.repeat(np.arange(nt), n_rep)
    resp_ids = _ids("R-", start + 1 + resp_task, _task_width(config), pc.binary_join_element_wise("-", codes, ""))
    key = (np.arange(n_rep)[:, None] * nt + chunk.crit_task[None, :]) * len(DIMS) + chunk.crit_dim[None, :]
    met = np.bincount(key.ravel(), weights=chunk.verdict.ravel(), minlength=n_rep * nt * len(DIMS))
    met = met.reshape(n_rep, nt, len(DIMS)).transpose(1, 0, 2).reshape(nt * n_rep, len(DIMS))
    total = np.repeat(np.asarray(tasks.counts[start : start + nt]), n_rep, axis=0)
    include = (total > 0) & (2 * met >= total)
    harm_failed = (total[:, HARM] > 0) & ~include[:, HARM]
    boundary = _BOUNDARY[tasks.subcategory[start + resp_task]]
    picks = rng_text.integers(0, 1 << 30, size=(nt * n_rep, 9))
    content = _reply_text(include, harm_failed, boundary, picks)
    empty = chunk.empty.T.ravel()
    content = pc.if_else(pa.array(empty), "", content)
    responses = pa.table(
        {
            "response_id": resp_ids,
            "task_id": task_ids.take(pa.array(resp_task)),
            "model_id": pa.array(_model_ids(config) * nt, pa.string()),
            "content": content,
        },
        schema=contract.SCHEMAS["responses"],
    )

    # (reply, criterion) pairs in task-major order: task, reply, criterion
    per_task = np.bincount(chunk.crit_task, minlength=nt)
    first = np.cumsum(per_task) - per_task
    block_task = resp_task
    block_len = per_task[block_task]
    block_first = np.cumsum(block_len) - block_len
    n_pairs = int(block_len.sum())
    pair_block = np.repeat(np.arange(block_task.size), block_len)
    pair_crit = first[block_task][pair_block] + (np.arange(n_pairs) - block_first[pair_block])
    pair_reply = np.tile(np.arange(n_rep), nt)[pair_block]
    verdict = chunk.verdict[pair_reply, pair_crit]
    pair_empty = empty[pair_block]

    judge_labels = _judge_table(config, latent, index, verdict, pair_empty, pair_block, pair_crit, resp_ids, crit_ids)
    calibration = _calibration_table(
        config, latent, index, verdict, pair_empty, pair_block, pair_crit, chunk.crit_dim, resp_ids, crit_ids
    )
    return {"criteria": criteria, "responses": responses, "judge_labels": judge_labels,
            "calibration_labels": calibration}


def _judge_table(
    config: SynthConfig,
    latent: Latent,
    index: int,
    verdict: np.ndarray,
    empty: np.ndarray,
    pair_block: np.ndarray,
    pair_crit: np.ndarray,
    resp_ids: pa.Array,
    crit_ids: pa.Array,
) -> pa.Table:
    """Judge samples scattered around the verdict; the majority (tie = unmet) equals it."""
    rng = _rng(config, 4, index)
    j = config.judge_samples
    labels = verdict[:, None] ^ (rng.random((verdict.size, j)) < latent.judge_flip)
    wrong = (2 * labels.sum(axis=1) > j) != verdict
    labels[wrong] = verdict[wrong, None]
    labels[empty] = False
    rows = np.repeat(np.arange(verdict.size), j)
    return pa.table(
        {
            "response_id": resp_ids.take(pa.array(pair_block[rows])),
            "criterion_id": crit_ids.take(pa.array(pair_crit[rows])),
            "judge_id": pa.repeat(pa.scalar("judge-a"), rows.size),
            "sample_index": pa.array(np.tile(np.arange(j, dtype=np.int32), verdict.size)),
            "met": pa.array(labels.ravel()),
        },
        schema=contract.SCHEMAS["judge_labels"],
    )


def _calibration_table(
    config: SynthConfig,
    latent: Latent,
    index: int,
    verdict: np.ndarray,
    empty: np.ndarray,
    pair_block: np.ndarray,
    pair_crit: np.ndarray,
    crit_dim: np.ndarray,
    resp_ids: pa.Array,
    crit_ids: pa.Array,
) -> pa.Table:
    """Clinician labels on a random share of pairs: a truth near the verdict, plus annotator noise."""
    rng = _rng(config, 8, index)
    chosen = np.flatnonzero(rng.random(verdict.size) < config.calibration_fraction)
    v = verdict[chosen]
    rate = np.where(v, latent.truth_lenient, latent.truth_strict) * _JUDGE_DISAGREEMENT[crit_dim[pair_crit[chosen]]]
    flip_truth = rng.random(chosen.size) < rate
    truth = (v ^ flip_truth) & ~empty[chosen]
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
            "response_id": resp_ids.take(pa.array(pair_block[chosen][pair])),
            "criterion_id": crit_ids.take(pa.array(pair_crit[chosen][pair])),
            "annotator_id": annotators.take(pa.array(annotator)),
            "met": pa.array(labels[pair, annotator]),
        },
        schema=contract.SCHEMAS["calibration_labels"],
    )


def _redteam_table(config: SynthConfig) -> pa.Table:
    rng = _rng(config, 9)
    n = config.redteam_transcripts
    lengths = rng.integers(30, 61, size=n)
    transcript = np.repeat(np.arange(n), lengths)
    first = np.cumsum(lengths) - lengths
    turn = np.arange(transcript.size) - first[transcript]
    is_user = turn % 2 == 0
    pool = _Pool({"user": text.REDTEAM_USER_LINES, "assistant": text.REDTEAM_ASSISTANT_LINES})
    start = rng.integers(0, 1 << 30, size=(n, 2))[transcript]
    main = np.where(
        is_user, pool.index("user", start[:, 0] + turn // 2), pool.index("assistant", start[:, 1] + turn // 2)
    )
    named = rng.random(n) >= 0.25
    model = rng.integers(0, config.n_models, size=n)
    model_ids = pa.array(_model_ids(config)[:-1], pa.string()).take(
        pa.array(model[transcript], mask=~named[transcript])
    )
    width = max(3, len(str(n)))
    return pa.table(
        {
            "transcript_id": _ids("RT-", transcript + 1, width),
            "turn_index": pa.array(turn.astype(np.int32)),
            "role": pa.array(np.where(is_user, "user", "assistant"), pa.string()),
            "content": pool.join([main]),
            "model_id": model_ids,
        },
        schema=contract.SCHEMAS["redteam_transcripts"],
    )


# --------------------------------------------------------------------------- writing


def _write(table: pa.Table, path: Path) -> None:
    pq.write_table(table, path, compression=_COMPRESSION)


def _progress(total: int, enabled: bool) -> Iterator[int]:
    """Yields chunk numbers; a tqdm bar on a terminal, plain lines otherwise."""
    if enabled and sys.stderr.isatty():
        from tqdm import tqdm

        yield from tqdm(range(total), desc="synth", unit="chunk", file=sys.stderr)
        return
    step = max(1, total // 10)
    for i in range(total):
        yield i
        if enabled and ((i + 1) % step == 0 or i + 1 == total):
            print(f"synth: {i + 1}/{total} chunks", file=sys.stderr, flush=True)


def write_release(out_dir: Path, config: SynthConfig, *, progress: bool = False) -> Path:
    """Write a complete synthetic release (Parquet tables + manifest.json) into out_dir."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stale = [out_dir / contract.MANIFEST] + [out_dir / contract.file_name(t)
                                             for t in contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES]
    for path in stale:
        path.unlink(missing_ok=True)

    latent = Latent()
    models = _models(config, latent)
    tasks = _tasks(config, latent)
    size = chunk_size(config)
    n_chunks = -(-config.n_tasks // size)
    chunked = ("criteria", "responses", "judge_labels", "calibration_labels")
    writers = {
        t: pq.ParquetWriter(out_dir / contract.file_name(t), contract.SCHEMAS[t], compression=_COMPRESSION)
        for t in chunked
    }
    try:
        for i in _progress(n_chunks, progress):
            start, stop = i * size, min((i + 1) * size, config.n_tasks)
            chunk = _simulate_chunk(config, latent, models, tasks, start, stop, i)
            for name, table in _chunk_tables(config, latent, tasks, chunk, i).items():
                writers[name].write_table(table)
    finally:
        for writer in writers.values():
            writer.close()

    _write(_tasks_table(config, tasks), out_dir / "tasks.parquet")
    _write(_turns_table(config, tasks), out_dir / "turns.parquet")
    _write(_models_table(config), out_dir / "models.parquet")
    if config.redteam_transcripts > 0:
        _write(_redteam_table(config), out_dir / "redteam_transcripts.parquet")
    write_manifest(out_dir, config.release_id, synthetic=True, created_at=CREATED_AT)
    return out_dir


def _is_complete(release_dir: Path, release_id: str) -> bool:
    """The folder holds a manifest for this release whose every file matches it."""
    try:
        manifest = read_manifest(release_dir)
    except (OSError, ValueError):
        return False
    files = manifest.get("files")
    if manifest.get("release") != release_id or not isinstance(files, dict):
        return False
    if any(contract.file_name(t) not in files for t in contract.REQUIRED_TABLES):
        return False
    for name, entry in files.items():
        path = release_dir / name
        if not isinstance(entry, dict) or not path.is_file():
            return False
        if sha256_of(path) != entry.get("sha256") or parquet_rows(path) != entry.get("rows"):
            return False
    return True


def ensure_default_release() -> Path:
    """The default synthetic release at settings.DEFAULT_RELEASE_DIR, written if absent or incomplete."""
    target = settings.DEFAULT_RELEASE_DIR
    config = SynthConfig()
    if _is_complete(target, config.release_id):
        return target
    staging = folders.make_beside(target)
    write_release(staging, config)
    if target.exists() and not _is_complete(target, config.release_id):
        shutil.rmtree(target, ignore_errors=True)
    try:
        staging.rename(target)
    except OSError:
        # another process published it first; keep theirs if it is whole
        shutil.rmtree(staging, ignore_errors=True)
        if not _is_complete(target, config.release_id):
            raise
    return target
