"""The manifest's optional primary_judge (whose labels give the headline judge_alpha): the
gate takes a judge that has labels and refuses, by name, one that has none or is no string."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.gate_fixture import SharedGate
from fixtures.releases.hand_built import JUDGES
from fixtures.releases.writer import edit_manifest


def _gate(release: Path, gate: SharedGate, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, str]]:
    """The exit code `distressbench gate` would end with, and its FAIL lines by check."""
    code = 0 if gate(release).passed else 1
    out = capsys.readouterr().err
    failed = {line[5:].split(":", 1)[0]: line for line in out.splitlines() if line.startswith("FAIL ")}
    return code, failed


def test_a_primary_judge_with_labels_passes(
    good_release: Path, shared_gate: SharedGate, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_manifest(good_release, primary_judge=JUDGES[1])
    assert _gate(good_release, shared_gate, capsys) == (0, {})


def test_a_primary_judge_without_labels_is_refused_by_name(
    good_release: Path, shared_gate: SharedGate, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_manifest(good_release, primary_judge="judge-nobody")
    code, failed = _gate(good_release, shared_gate, capsys)
    assert code == 1
    assert list(failed) == ["primary_judge_labelled judge_labels.judge_id"], failed
    line = failed["primary_judge_labelled judge_labels.judge_id"]
    assert '"judge-nobody"' in line and "no label with that judge_id" in line
    assert f'"{JUDGES[0]}"' in line  # the judges that do have labels are named


@pytest.mark.parametrize("value", ["", 7, None])
def test_a_primary_judge_that_is_no_judge_id_is_refused(
    good_release: Path, shared_gate: SharedGate, capsys: pytest.CaptureFixture[str], value: object
) -> None:
    edit_manifest(good_release, primary_judge=value)
    code, failed = _gate(good_release, shared_gate, capsys)
    assert code == 1
    assert list(failed) == ["manifest_primary_judge manifest.primary_judge"], failed
    assert "must be the judge_id" in failed["manifest_primary_judge manifest.primary_judge"]
