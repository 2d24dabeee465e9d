"""What to generate (SynthConfig), and the random streams a config seeds."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from distressbench.synth.latent import Latent


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
        tags = {"n_annotators": "a", "calibration_fraction": "c", "redteam_transcripts": "r", "empty_reply_rate": "e"}
        default = SynthConfig()
        for f in fields(self):
            if f.name in tags and getattr(self, f.name) != getattr(default, f.name):
                rid += f"-{tags[f.name]}{getattr(self, f.name)}"
        return rid

    @property
    def n_replies_per_task(self) -> int:
        return self.n_models + 1


def rng_for(config: SynthConfig, stream: int, chunk: int = 0) -> np.random.Generator:
    """The generator of one stream (one per step of the generation) and chunk, from the seed alone."""
    return np.random.default_rng([config.seed, stream, chunk])
