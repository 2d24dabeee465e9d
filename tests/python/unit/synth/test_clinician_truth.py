"""The clinicians' truth on every pair (synth.labels.clinician_truth), which simulations
compare estimates with and which never goes into a release."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from distressbench.synth.config import SynthConfig
from distressbench.synth.labels import calibration_table, chunk_pairs, clinician_truth
from distressbench.synth.latent import Latent
from distressbench.synth.simulate import draw_models, draw_tasks, simulate_chunk


def test_truth_marks_the_calibrated_pairs_and_departs_from_a_lenient_judge() -> None:
    config, latent = SynthConfig(n_tasks=300, n_models=4), Latent()
    tasks = draw_tasks(config, latent)
    chunk = simulate_chunk(config, latent, draw_models(config, latent), tasks, 0, config.n_tasks, 0)
    pairs = chunk_pairs(config, chunk)
    truth, labelled = clinician_truth(config, latent, 0, pairs, chunk.crit_dim)

    # the labelled pairs are exactly the calibration table's
    ids = pa.array(np.arange(max(pairs.block.max(), pairs.crit.max()) + 1).astype(str))  # a row's number
    table = calibration_table(config, latent, 0, pairs, chunk.crit_dim, ids, ids)
    calibrated = {
        (r, c) for r, c in zip(table["response_id"].to_pylist(), table["criterion_id"].to_pylist(), strict=True)
    }
    expected = {(str(b), str(c)) for b, c in zip(pairs.block[labelled], pairs.crit[labelled], strict=True)}
    assert calibrated == expected
    assert abs(labelled.mean() - config.calibration_fraction) < 0.01

    # the judge calls met what the truth calls unmet more often than the reverse
    met, unmet = pairs.verdict & ~pairs.empty, ~pairs.verdict & ~pairs.empty
    lenient, strict = (met & ~truth).sum() / met.sum(), (unmet & truth).sum() / unmet.sum()
    assert 0.06 < lenient < 0.11 and 0.04 < strict < 0.08
    assert not truth[pairs.empty].any()
