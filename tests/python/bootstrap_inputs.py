"""Random but valid inputs for distressbench.bootstrap.run_bootstrap (tests and timing only)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from distressbench.stats.bootstrap import RANKED_KIND, REFERENCE_KIND


def random_inputs(
    n_tasks: int, n_models: int, n_dimensions: int = 7, seed: int = 0, has_share: float = 0.8
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """n_models - 1 ranked models plus one clinician reference; each task has each dimension
    with probability has_share."""
    rng = np.random.default_rng(seed)
    tasks = np.array([f"task-{i:06d}" for i in range(n_tasks)], dtype=object)
    models = np.array([f"model-{j:03d}" for j in range(n_models)], dtype=object)
    kinds = np.array([RANKED_KIND] * (n_models - 1) + [REFERENCE_KIND], dtype=object)
    ability = rng.uniform(0.4, 0.95, n_models)
    scores = np.clip(ability[None, :] + rng.normal(0, 0.2, (n_tasks, n_models)), 0, 1)
    turn = np.where(rng.random(n_tasks) < 0.6, "single", "multi").astype(object)
    recognized = rng.random((n_tasks, n_models)) < 0.7
    not_routed = recognized & (rng.random((n_tasks, n_models)) < 0.35)
    cells = pd.DataFrame(
        {
            "model_id": pd.Series(np.tile(models, n_tasks), dtype="str"),
            "task_id": pd.Series(np.repeat(tasks, n_models), dtype="str"),
            "kind": pd.Series(np.tile(kinds, n_tasks), dtype="str"),
            "score": scores.ravel(),
            "turn_type": pd.Series(np.repeat(turn, n_models), dtype="str"),
            "is_recognized_with_routing": recognized.ravel(),
            "is_not_routed": not_routed.ravel(),
        }
    )
    has = rng.random((n_tasks, n_dimensions)) < has_share
    t_idx, d_idx = np.nonzero(has)
    n_pairs = len(t_idx)
    dimension_names = np.array([f"dim_{x}" for x in range(n_dimensions)], dtype=object)
    dimension_cells = pd.DataFrame(
        {
            "model_id": pd.Series(np.tile(models, n_pairs), dtype="str"),
            "task_id": pd.Series(np.repeat(tasks[t_idx], n_models), dtype="str"),
            "dimension": pd.Series(np.repeat(dimension_names[d_idx], n_models), dtype="str"),
            "score": rng.random(n_pairs * n_models),
        }
    )
    return cells, dimension_cells
