"""The bootstrap's resample counts (distressbench.stats.bootstrap.draws): numpy's spawned
streams, whatever the threads and chunks, as run_bootstrap hands them on."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from distressbench.stats.bootstrap import draws
from distressbench.stats.bootstrap.draws import ResampleCounts
from fixtures.bootstrap_inputs import random_inputs, run_bootstrap


def spawned_counts(seed: int, n_tasks: int, samples: int, per_stream: int) -> np.ndarray:
    """The counts as the definition says: stream s (a SeedSequence(seed).spawn child) draws
    resamples s * per_stream on as rows of integers(0, n_tasks, size=(rows, n_tasks))."""
    children = np.random.SeedSequence(seed).spawn(math.ceil(samples / per_stream))
    rows = []
    for s, child in enumerate(children):
        size = min(per_stream, samples - s * per_stream)
        index = np.random.Generator(np.random.PCG64(child)).integers(0, n_tasks, size=(size, n_tasks))
        rows.extend(np.bincount(row, minlength=n_tasks) for row in index)
    return np.stack(rows).astype(np.float64)


def taken(counts: ResampleCounts, chunks: list[int]) -> np.ndarray:
    return np.concatenate([counts.take(size).copy() for size in chunks])


@pytest.mark.parametrize("n_tasks", [1, 2, 7, 718])
def test_resample_counts_are_the_spawned_streams_rows_whatever_the_threads_and_chunks(
    monkeypatch: pytest.MonkeyPatch, n_tasks: int
) -> None:
    monkeypatch.setattr(draws, "RESAMPLES_PER_STREAM", 4)
    expected = spawned_counts(20261101, n_tasks, 23, per_stream=4)
    for threads in (1, 2, 5):
        for chunks in ([23], [1] * 23, [3, 7, 1, 12], [9, 14]):
            got = taken(ResampleCounts(20261101, n_tasks, 23, threads=threads), chunks)
            np.testing.assert_array_equal(got, expected, err_msg=f"threads={threads} chunks={chunks}")
    monkeypatch.setattr(draws, "BATCH_VALUES", 2 * n_tasks + 1)  # a stream's rows drawn two at a time
    np.testing.assert_array_equal(taken(ResampleCounts(20261101, n_tasks, 23, threads=1), [5, 18]), expected)
    assert (expected.sum(axis=1) == n_tasks).all()


def test_resample_counts_refuse_more_than_their_samples() -> None:
    counts = ResampleCounts(1, 5, 10)
    counts.take(8)
    with pytest.raises(ValueError, match="8 of 10 resamples were taken; 3 more is too many"):
        counts.take(3)


def test_run_bootstrap_hands_on_the_spawned_streams_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(draws, "RESAMPLES_PER_STREAM", 10)
    cells, dims = random_inputs(90, 5, n_dimensions=3, seed=8)
    seen: list[np.ndarray] = []
    run_bootstrap(cells, dims, samples=301, seed=4, chunk_size=37, on_counts=lambda c, _: seen.append(c.copy()))
    np.testing.assert_array_equal(np.concatenate(seen), spawned_counts(4, 90, 301, per_stream=10))


def test_thread_count_does_not_change_results(monkeypatch: pytest.MonkeyPatch) -> None:
    cells, dims = random_inputs(70, 5, n_dimensions=2, seed=6)
    monkeypatch.setattr(draws, "DRAW_THREADS", 1)
    single = run_bootstrap(cells, dims, samples=200, seed=2)
    monkeypatch.setattr(draws, "DRAW_THREADS", 5)
    pd.testing.assert_frame_equal(single, run_bootstrap(cells, dims, samples=200, seed=2), check_exact=True)
