"""The build's settings: read from the environment once, with one default each."""

from __future__ import annotations

from pathlib import Path

import pytest

from distressbench.errors import UsageError
from distressbench.settings import DEFAULT_MEMORY_LIMIT, DEFAULT_WAREHOUSE, Settings


def test_settings_come_from_the_environment_once_with_one_default_each() -> None:
    assert Settings.from_environment({}) == Settings()
    assert (Settings().warehouse, Settings().memory_limit, Settings().dbt_threads) == (
        DEFAULT_WAREHOUSE,
        DEFAULT_MEMORY_LIMIT,
        None,
    )
    given = Settings.from_environment(
        {
            "DISTRESSBENCH_WAREHOUSE": "/w/x.duckdb",
            "DISTRESSBENCH_MEMORY_LIMIT": "900MB",
            "DISTRESSBENCH_THREADS": "3",
            "DISTRESSBENCH_DEBUG": "1",
        }
    )
    assert (given.warehouse, given.memory_limit, given.dbt_threads, given.debug) == (
        Path("/w/x.duckdb"),
        "900MB",
        3,
        True,
    )
    with pytest.raises(UsageError, match="DISTRESSBENCH_THREADS must be a positive whole number, not 'two'"):
        Settings.from_environment({"DISTRESSBENCH_THREADS": "two"})
