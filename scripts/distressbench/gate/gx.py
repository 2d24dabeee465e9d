"""A thin, quiet wrapper around Great Expectations 1.x for the gate's value checks.

One ephemeral context per process, one pandas datasource; every frame the gate checks is
validated as a whole-dataframe batch against an expectation suite built in code. Suites run
first with BOOLEAN_ONLY results (cheap); only the expectations that fail are re-run with a
SUMMARY result to learn how many rows fail and which (first 20 by frame order).

Validation is a pure function of the frame and the suite, so outcomes are memoised per
process, keyed by a digest of the frame's content and the expectations' configurations:
gating several releases in one process (the test-suite does it a hundred times) re-runs
GX only on the frames that differ.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import sys
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from distressbench.gate.results import N_EXAMPLES

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")


@contextlib.contextmanager
def _without_what_the_gate_does_not_use() -> Iterator[None]:
    """While Great Expectations is imported: scipy.stats, which GX imports for expectations the
    gate never runs (distribution tests), is a lazy module (loaded at its first use, if any),
    and pyspark, which GX imports for its Spark engine, reads as not installed (GX then leaves
    its Spark engine out). At 1x GX's import is the gate's longest step, and these two were
    ~0.7 s and ~0.3 s of it. pyspark can be imported again afterwards."""
    stats = None if "scipy.stats" in sys.modules else importlib.util.find_spec("scipy.stats")
    if stats is not None and stats.loader is not None:
        stats.loader = importlib.util.LazyLoader(stats.loader)
        module = importlib.util.module_from_spec(stats)
        sys.modules["scipy.stats"] = module
        stats.loader.exec_module(module)
        # as an import would: GX's `from scipy import stats` then takes it without touching it
        sys.modules["scipy"].stats = module
    hides_pyspark = "pyspark" not in sys.modules
    if hides_pyspark:
        sys.modules["pyspark"] = None  # type: ignore[assignment]  # import pyspark raises ImportError
    try:
        yield
    finally:
        if hides_pyspark:
            del sys.modules["pyspark"]


try:
    with _without_what_the_gate_does_not_use():
        import great_expectations as gx
        from great_expectations.data_context.types.base import ProgressBarsConfig
        from great_expectations.execution_engine import pandas_execution_engine
        from great_expectations.expectations.expectation import Expectation
except SystemExit as error:
    # When this process imported pyspark before GX, GX imports pyspark's Spark Connect
    # module, which ends the process from its import (exit code 0, "Skipping doctests") when
    # __main__ has no file, as under `python -c`, and grpc is missing. A gate or build would
    # end as if it had passed.
    raise ImportError(
        f"Great Expectations could not be imported: pyspark, which it imports, tried to end the process "
        f"(exit code {error.code!r}) because this interpreter's __main__ has no file and grpc is not "
        "installed; run the `distressbench` command or `python -m distressbench.cli` instead"
    ) from None

# GX fingerprints every pandas batch smaller than HASH_THRESHOLD bytes (an md5 over pandas'
# hash of each row) and keeps the digest as a batch marker, which nothing here reads. At 100x
# that was 1.3 s of the criteria frame's 2.2-2.7 s in GX (1.16 M rows); 0 fingerprints none.
pandas_execution_engine.HASH_THRESHOLD = 0

_MEMO_SIZE = 256
_MEMO: OrderedDict[str, list[Outcome]] = OrderedDict()

for _name in ("great_expectations", "posthog"):
    logging.getLogger(_name).setLevel(logging.ERROR)


@dataclass
class Outcome:
    """What GX said about one expectation."""

    success: bool
    unexpected_count: int | None  # rows that failed (column-map expectations)
    unexpected_index: list[Any]  # frame index labels of the first failing rows
    observed_value: Any  # for table-level expectations (e.g. the row count)
    error: str | None  # set when GX raised instead of evaluating


class GxRunner:
    """Validates pandas frames against suites of expectations in one ephemeral context."""

    _shared: GxRunner | None = None

    @classmethod
    def shared(cls) -> GxRunner:
        """The process's runner (building a context costs GX about 0.2 s; it holds no release state)."""
        if cls._shared is None:
            cls._shared = cls()
        return cls._shared

    def __init__(self) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            context = gx.get_context(mode="ephemeral")
            context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
            source = context.data_sources.add_pandas("release")
            self._batches = source.add_dataframe_asset("frame").add_batch_definition_whole_dataframe("whole")
        self._n_suites = 0

    def validate(
        self, frame: pd.DataFrame, expectations: list[Expectation], *, n_examples: int = N_EXAMPLES
    ) -> list[Outcome]:
        """One Outcome per expectation, in the order given; at most n_examples failing rows each."""
        if not expectations:
            return []
        key = _memo_key(frame, expectations, n_examples)
        if key is not None and key in _MEMO:
            _MEMO.move_to_end(key)
            return _MEMO[key]
        outcomes = self._validate(frame, expectations, n_examples)
        if key is not None:
            _MEMO[key] = outcomes
            while len(_MEMO) > _MEMO_SIZE:
                _MEMO.popitem(last=False)
        return outcomes

    def _validate(self, frame: pd.DataFrame, expectations: list[Expectation], n_examples: int) -> list[Outcome]:
        frame = _widened(frame)
        for i, expectation in enumerate(expectations):
            expectation.meta = {"rule": i}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            batch = self._batches.get_batch(batch_parameters={"dataframe": frame})
            first = self._run(batch, expectations, "BOOLEAN_ONLY")
            failed = [expectations[i] for i, (ok, _, _) in first.items() if not ok]
            detail = self._run(batch, failed, {"result_format": "SUMMARY", "partial_unexpected_count": n_examples})
        outcomes: list[Outcome] = []
        for i in range(len(expectations)):
            ok, result, error = detail.get(i, first[i])
            outcomes.append(
                Outcome(
                    success=ok,
                    unexpected_count=result.get("unexpected_count"),
                    unexpected_index=list(result.get("partial_unexpected_index_list") or []),
                    observed_value=result.get("observed_value"),
                    error=error,
                )
            )
        return outcomes

    def _run(
        self, batch: Any, expectations: list[Expectation], result_format: Any
    ) -> dict[int, tuple[bool, dict[str, Any], str | None]]:
        if not expectations:
            return {}
        self._n_suites += 1
        suite = gx.ExpectationSuite(name=f"gate_{self._n_suites}")
        for expectation in expectations:
            suite.add_expectation(expectation)
        results = batch.validate(suite, result_format=result_format)
        out: dict[int, tuple[bool, dict[str, Any], str | None]] = {}
        for result in results.results:
            info = result.exception_info or {}
            error = str(info.get("exception_message")) if info.get("raised_exception") else None
            out[int(result.expectation_config.meta["rule"])] = (bool(result.success), dict(result.result or {}), error)
        return out


def _widened(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its narrower numpy numbers as int64 and float64 (the same values, index
    and row order). GX's pandas range check is vectorised only for a column whose dtype is
    int64 or float64 (`column.dtype in [int, float]`) and compares any other value by value in
    Python: at 100x, validating the criteria frame (1.16 M rows, int32 weights) took 1.6-2.1 s,
    and 1.1-1.3 s widened."""
    narrow = [
        column
        for column, dtype in frame.dtypes.items()
        if isinstance(dtype, np.dtype) and dtype.kind in "iuf" and dtype.itemsize < 8
    ]
    if not narrow:
        return frame
    widened = frame.copy(deep=False)  # only the widened columns are new memory
    for column in narrow:
        widened[column] = frame[column].astype("float64" if frame[column].dtype.kind == "f" else "int64")
    return widened


def _memo_key(frame: pd.DataFrame, expectations: list[Expectation], n_examples: int) -> str | None:
    """Digest of the frame's values (via Arrow IPC) and of the suite; None if not digestible."""
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0 or frame.index.step != 1:
        return None
    try:
        table = pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    digest = hashlib.sha256()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    digest.update(sink.getvalue())
    suite = [(e.expectation_type, e.dict(exclude={"id", "meta", "notes", "rendered_content"})) for e in expectations]
    digest.update(json.dumps([suite, n_examples], sort_keys=True, default=str).encode())
    return digest.hexdigest()
