"""The tables written whole, not chunk by chunk: tasks, turns, models and the red-team
transcripts."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from distressbench.release import contract
from distressbench.synth import ids, phrase_pools
from distressbench.synth.config import SynthConfig, rng_for
from distressbench.synth.latent import SUBCATEGORIES
from distressbench.synth.simulate import Tasks
from distressbench.synth.text_assembly import BOUNDARY, TURN_POOL, Pool, reply_text, section_index


def tasks_table(config: SynthConfig, tasks: Tasks) -> pa.Table:
    rng = rng_for(config, 5)
    n = config.n_tasks
    include = tasks.counts > 0
    picks = rng.integers(0, 1 << 30, size=(n, 9))
    reference = reply_text(include, np.zeros(n, bool), BOUNDARY[tasks.subcategory], picks)
    return pa.table(
        {
            "task_id": ids.task_ids(config, 0, n),
            "subcategory": pa.array(np.array(SUBCATEGORIES)[tasks.subcategory], pa.string()),
            "n_user_turns": pa.array(tasks.n_user_turns, pa.int32()),
            "reference_response": reference,
        },
        schema=contract.SCHEMAS["tasks"],
    )


def turns_table(config: SynthConfig, tasks: Tasks) -> pa.Table:
    rng = rng_for(config, 6)
    n_turns = 2 * tasks.n_user_turns.astype(np.int64) - 1
    task = np.repeat(np.arange(config.n_tasks), n_turns)
    first = np.cumsum(n_turns) - n_turns
    turn = np.arange(task.size) - first[task]
    is_user = turn % 2 == 0
    sub = tasks.subcategory[task]
    # per conversation: random starting lines, then consecutive ones, so no line repeats
    start = rng.integers(0, 1 << 30, size=(config.n_tasks, 5))[task]
    pool = TURN_POOL
    step = turn // 2  # 0 for the opener, k for the k-th follow-up or assistant turn (1-based)
    opener = section_index(pool, "open", sub, start[:, 0])
    own_first = start[:, 4] % 2 == 0  # whether the first follow-up is subcategory-specific
    own_turn = (step % 2 == 1) == own_first
    own_follow = section_index(pool, "follow", sub, start[:, 1] + step // 2)
    generic_follow = pool.index("follow:generic", start[:, 2] + step // 2)
    follow = np.where(own_turn, own_follow, generic_follow)
    main = np.where(~is_user, pool.index("assistant", start[:, 3] + step), np.where(turn == 0, opener, follow))
    context = np.where(turn == 0, pool.index("context", start[:, 4] // 2), 0)
    content = pool.join([main, context])
    return pa.table(
        {
            "task_id": ids.task_ids(config, 0, config.n_tasks).take(pa.array(task)),
            "turn_index": pa.array(turn.astype(np.int32)),
            "role": pa.array(np.where(is_user, "user", "assistant"), pa.string()),
            "content": content,
        },
        schema=contract.SCHEMAS["turns"],
    )


def models_table(config: SynthConfig) -> pa.Table:
    families = phrase_pools.MODEL_FAMILIES
    names = [
        f"Synthetic {families[i % len(families)]} {1 + i // len(families)}.{i % 3} (model {code})"
        for i, code in enumerate(ids.model_codes(config)[:-1])
    ]
    providers = [phrase_pools.PROVIDERS[i % len(phrase_pools.PROVIDERS)] for i in range(config.n_models)]
    return pa.table(
        {
            "model_id": ids.model_ids(config),
            "display_name": names + ["Clinician reference (synthetic)"],
            "provider": providers + ["DistressBench clinicians (synthetic)"],
            "kind": ["model"] * config.n_models + ["clinician_reference"],
        },
        schema=contract.SCHEMAS["models"],
    )


def redteam_table(config: SynthConfig) -> pa.Table:
    rng = rng_for(config, 9)
    n = config.redteam_transcripts
    lengths = rng.integers(30, 61, size=n)
    transcript = np.repeat(np.arange(n), lengths)
    first = np.cumsum(lengths) - lengths
    turn = np.arange(transcript.size) - first[transcript]
    is_user = turn % 2 == 0
    pool = Pool({"user": phrase_pools.REDTEAM_USER_LINES, "assistant": phrase_pools.REDTEAM_ASSISTANT_LINES})
    start = rng.integers(0, 1 << 30, size=(n, 2))[transcript]
    main = np.where(
        is_user, pool.index("user", start[:, 0] + turn // 2), pool.index("assistant", start[:, 1] + turn // 2)
    )
    named = rng.random(n) >= 0.25
    model = rng.integers(0, config.n_models, size=n)
    model_ids = pa.array(ids.model_ids(config)[:-1], pa.string()).take(
        pa.array(model[transcript], mask=~named[transcript])
    )
    width = max(3, len(str(n)))
    return pa.table(
        {
            "transcript_id": ids.numbered("RT-", transcript + 1, width),
            "turn_index": pa.array(turn.astype(np.int32)),
            "role": pa.array(np.where(is_user, "user", "assistant"), pa.string()),
            "content": pool.join([main]),
            "model_id": model_ids,
        },
        schema=contract.SCHEMAS["redteam_transcripts"],
    )
