"""The resample counts (ResampleCounts): how often each task occurs in each resample, drawn
from numpy's parallel random streams."""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

# Resamples drawn from one random stream (SeedSequence.spawn child): fixed, so that the
# draws depend neither on the thread count nor on the chunks; small enough that one chunk
# of resamples spans several streams for the threads to draw.
RESAMPLES_PER_STREAM = 100
# Threads that draw and count, one stream at a time; the result does not depend on it.
DRAW_THREADS = max(1, min(os.cpu_count() or 1, 8))
# Task indices drawn and counted by one round of numpy calls (several resamples when tasks are few).
BATCH_VALUES = 2**16


class ResampleCounts:
    """The task counts of resamples 0 to samples - 1, handed out in resample order.

    Resample b is drawn from stream b // RESAMPLES_PER_STREAM, the generator
    ``np.random.Generator(np.random.PCG64(child))`` of that child of
    ``np.random.SeedSequence(seed).spawn(n_streams)``: a stream's resamples are the rows of
    ``integers(0, n_tasks, size=(resamples, n_tasks))``, and the counts of a row are how often
    each task index occurs in it. Streams are drawn in parallel (DRAW_THREADS, or `threads`),
    a few rows per call; a stream's generator carries on where the previous chunk left it, so
    the counts do not depend on the thread count or on how the resamples are cut into chunks.
    """

    def __init__(self, seed: int, n_tasks: int, samples: int, *, threads: int | None = None) -> None:
        self._per_stream = RESAMPLES_PER_STREAM
        children = np.random.SeedSequence(seed).spawn(math.ceil(samples / self._per_stream))
        self._streams = [np.random.Generator(np.random.PCG64(child)) for child in children]
        self._n_tasks = n_tasks
        self._samples = samples
        self._threads = threads or DRAW_THREADS
        self._done = 0

    def take(self, size: int, out: np.ndarray | None = None) -> np.ndarray:
        """size x n_tasks float64 counts of the next `size` resamples (in `out`'s first rows if given)."""
        if self._done + size > self._samples:
            raise ValueError(f"{self._done} of {self._samples} resamples were taken; {size} more is too many")
        counts = np.empty((size, self._n_tasks)) if out is None else out[:size]
        start, self._done = self._done, self._done + size
        segments = []  # (first, last + 1) resample of each stream's part of the chunk
        lo = start
        while lo < start + size:
            hi = min(start + size, (lo // self._per_stream + 1) * self._per_stream)
            segments.append((lo, hi))
            lo = hi
        with ThreadPoolExecutor(max_workers=self._threads) as pool:
            jobs = [
                pool.submit(self._count, self._streams[lo // self._per_stream], counts[lo - start : hi - start])
                for lo, hi in segments
            ]
            for job in jobs:
                job.result()
        return counts

    def _count(self, stream: np.random.Generator, out: np.ndarray) -> None:
        """Fill out's rows with the counts of the stream's next len(out) rows of task indices."""
        n = self._n_tasks
        step = max(1, BATCH_VALUES // n)
        for lo in range(0, len(out), step):
            rows = min(step, len(out) - lo)
            index = stream.integers(0, n, size=(rows, n))
            index += np.arange(0, rows * n, n)[:, np.newaxis]  # row r's indices count into r * n + task
            out[lo : lo + rows] = np.bincount(index.ravel(), minlength=rows * n).reshape(rows, n)
