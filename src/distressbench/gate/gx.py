"""A thin, quiet wrapper around Great Expectations 1.x for the gate's value checks.

One ephemeral context per runner (analytics off), one pandas datasource; every frame the gate
checks is validated as a whole-dataframe batch against an expectation suite built in code.
Suites run first with BOOLEAN_ONLY results (cheap); only the expectations that fail are
re-run with a SUMMARY result to learn how many rows fail and which (first 20 by frame order).
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from typing import Any

import pandas as pd

from distressbench.gate.results import N_EXAMPLES

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)  # pyspark's, which GX imports, on pandas' version
    import great_expectations as gx
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )
    from great_expectations.expectations.expectation import Expectation


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

    def __init__(self) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            config = DataContextConfig(store_backend_defaults=InMemoryStoreBackendDefaults(), analytics_enabled=False)
            context = gx.get_context(mode="ephemeral", project_config=config)
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
