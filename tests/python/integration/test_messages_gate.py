"""The gate quotes at most a readable prefix of a 10,000-character manifest value."""

from __future__ import annotations

from pathlib import Path

import pytest

from distressbench.messages import LINE_PREFIX
from fixtures.cli_calls import LONG, run
from fixtures.releases.writer import edit_manifest


def test_the_gate_quotes_a_prefix_of_a_long_manifest_value(
    good_release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_manifest(good_release, benchmark=LONG, release=LONG)
    code, _, err = run(capsys, "gate", str(good_release))
    assert code == 1
    failed = [line for line in err.splitlines() if line.startswith("FAIL manifest_")]
    assert {line.split()[1] for line in failed} >= {"manifest_benchmark", "manifest_release_id"}
    assert all(len(line) < LINE_PREFIX for line in failed), [len(line) for line in failed]
    assert all("... (10,000 characters)" in line for line in failed)
