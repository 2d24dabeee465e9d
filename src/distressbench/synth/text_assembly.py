"""Text assembled from the phrase pools of phrase_pools.py by vectorised index: replies and turns."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from distressbench.synth import phrase_pools
from distressbench.synth.latent import DIM_INDEX, DIMS, SUBCATEGORIES


class Pool:
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
            parts.insert(0, pa.repeat(pa.scalar(phrase_pools.SYNTHETIC_MARK + " "), len(columns[0])))
        return pc.utf8_rtrim_whitespace(pc.binary_join_element_wise(*parts, ""))


# Reply sentence order: what a reply says first.
_REPLY_ORDER = (
    "recognition",
    "validation",
    "risk_assessment",
    "de_escalation",
    "routing",
    "safety_disclaimer",
    "harm_avoidance",
)
_REPLY_POOL = Pool(
    {
        **{f"reply:{d}": phrase_pools.REPLY_PHRASES[d] for d in DIMS},
        "harm_failure": phrase_pools.HARM_FAILURE_PHRASES,
        "fallback": phrase_pools.FALLBACK_REPLIES,
    }
)
BOUNDARY = np.array([phrase_pools.PROFILES[s].boundary for s in SUBCATEGORIES])


def reply_text(include: np.ndarray, harm_failed: np.ndarray, boundary: np.ndarray, picks: np.ndarray) -> pa.Array:
    """Replies from sentences of the dimensions they meet.

    include: (n, 7) the reply (mostly) meets the dimension; harm_failed: (n,) it fails harm
    avoidance; boundary: (n,) the task asks for something a reply should decline; picks: (n, 9).
    """
    pool = _REPLY_POOL
    columns = []
    for slot, dim in enumerate(_REPLY_ORDER):
        d = DIM_INDEX[dim]
        show = include[:, d] & (boundary if dim == "harm_avoidance" else True)
        columns.append(np.where(show, pool.index(f"reply:{dim}", picks[:, slot]), 0))
    columns.append(np.where(harm_failed, pool.index("harm_failure", picks[:, 7]), 0))
    said_nothing = np.all(np.stack(columns) == 0, axis=0)
    columns.append(np.where(said_nothing, pool.index("fallback", picks[:, 8]), 0))
    return pool.join(columns)


TURN_POOL = Pool(
    {
        **{f"open:{s}": phrase_pools.USER_LINES[s][0] for s in SUBCATEGORIES},
        **{f"follow:{s}": phrase_pools.USER_LINES[s][1] for s in SUBCATEGORIES},
        "follow:generic": phrase_pools.GENERIC_FOLLOW_UPS,
        "context": phrase_pools.CONTEXTS,
        "assistant": phrase_pools.ASSISTANT_LINES,
    }
)


def section_index(pool: Pool, prefix: str, sub: np.ndarray, pick: np.ndarray) -> np.ndarray:
    offsets = np.array([pool.offset[f"{prefix}:{s}"] for s in SUBCATEGORIES])
    sizes = np.array([pool.size[f"{prefix}:{s}"] for s in SUBCATEGORIES])
    return offsets[sub] + pick % sizes[sub]
