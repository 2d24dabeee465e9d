"""Identifiers in a synthetic release: tasks, models, responses, transcripts, zero-padded to
the config's size."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from distressbench.synth.config import SynthConfig

CLINICIAN_ID = "clinician-reference"


def numbered(prefix: str, numbers: np.ndarray, width: int, suffix: pa.Array | str = "") -> pa.Array:
    """prefix, then each number zero-padded to width, then suffix (one per number, or shared)."""
    digits = pc.utf8_lpad(pc.cast(pa.array(numbers), pa.string()), width=width, padding="0")
    return pc.binary_join_element_wise(prefix, digits, suffix, "")


def task_width(config: SynthConfig) -> int:
    return max(5, len(str(config.n_tasks)))


def _model_width(config: SynthConfig) -> int:
    return max(2, len(str(config.n_models)))


def task_ids(config: SynthConfig, start: int, stop: int) -> pa.Array:
    return numbered("T-", np.arange(start + 1, stop + 1), task_width(config))


def model_codes(config: SynthConfig) -> list[str]:
    width = _model_width(config)
    return [f"{i:0{width}d}" for i in range(1, config.n_models + 1)] + ["ref"]


def model_ids(config: SynthConfig) -> list[str]:
    width = _model_width(config)
    return [f"model-{i:0{width}d}" for i in range(1, config.n_models + 1)] + [CLINICIAN_ID]
