"""The gate's workspace (distressbench.dbt.staging): one per checkout, held by one gate at a
time. The staging run itself is tested in tests/python/integration/gate/test_staging_run.py."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from distressbench.dbt.staging import gate_workspace


def test_each_checkout_has_a_gate_workspace_of_its_own_held_by_one_gate_at_a_time(tmp_path: Path) -> None:
    with gate_workspace(tmp_path / "checkout-a") as first:
        with gate_workspace(tmp_path / "checkout-b") as other:  # another checkout does not wait
            assert other != first
        with (first / "lock").open("a") as lock, pytest.raises(BlockingIOError):
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the same checkout's next gate waits
    with gate_workspace(tmp_path / "checkout-a") as again:
        assert again == first
