"""The latent model's parameters, tuned offline on the default seed: the rubric's shape and
each dimension's ability profile. Arrays here are indexed by dimension, in DIMS's order."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from distressbench.release import contract

DIMS: tuple[str, ...] = contract.dimensions()
SUBCATEGORIES: tuple[str, ...] = contract.subcategories()
DIM_INDEX = {name: i for i, name in enumerate(DIMS)}
REC, ROUTE, HARM = DIM_INDEX["recognition"], DIM_INDEX["routing"], DIM_INDEX["harm_avoidance"]


def _per_dim(values: dict[str, float]) -> np.ndarray:
    return np.array([values[d] for d in DIMS], dtype=np.float64)


# Rubric shape, per dimension.
PRESENCE = _per_dim(
    {
        "recognition": 0.97,
        "risk_assessment": 0.93,
        "validation": 1.0,
        "de_escalation": 0.96,
        "routing": 0.97,
        "safety_disclaimer": 0.90,
        "harm_avoidance": 1.0,
    }
)
EXTRA_SHARE = _per_dim(
    {
        "recognition": 0.03,
        "risk_assessment": 0.15,
        "validation": 0.22,
        "de_escalation": 0.17,
        "routing": 0.12,
        "safety_disclaimer": 0.07,
        "harm_avoidance": 0.24,
    }
)
WEIGHT_LOW = _per_dim(
    {
        "recognition": 8,
        "risk_assessment": 4,
        "validation": 1,
        "de_escalation": 3,
        "routing": 8,
        "safety_disclaimer": 2,
        "harm_avoidance": 10,
    }
).astype(np.int64)
WEIGHT_HIGH = _per_dim(
    {
        "recognition": 18,
        "risk_assessment": 14,
        "validation": 10,
        "de_escalation": 14,
        "routing": 20,
        "safety_disclaimer": 12,
        "harm_avoidance": 20,
    }
).astype(np.int64)
CRITERIA_MEAN, CRITERIA_SD = 16.3, 2.8


@dataclass(frozen=True)
class Latent:
    """Parameters of the latent model (logit scale unless said otherwise)."""

    general: tuple[float, float, float] = (0.6430, 1.8055, 2.7095)  # worst, median, best ranked model
    # Per-dimension (worst, median, best); added to `general` where SHARES is 1.
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
JUDGE_DISAGREEMENT = _per_dim(
    {
        "recognition": 0.8,
        "risk_assessment": 0.9,
        "validation": 1.4,
        "de_escalation": 1.2,
        "routing": 0.7,
        "safety_disclaimer": 0.9,
        "harm_avoidance": 1.0,
    }
)

SHARES = _per_dim(
    {
        "recognition": 1,
        "risk_assessment": 1,
        "validation": 1,
        "de_escalation": 0,
        "routing": 1,
        "safety_disclaimer": 0,
        "harm_avoidance": 1,
    }
)
