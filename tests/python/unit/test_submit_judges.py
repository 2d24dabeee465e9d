"""`submit` and the judges: the base's named primary judge stays the derived release's, and one
line says when a submission's judges are not the base's ranking judges (its models will be
shown unranked), nothing when they are."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from distressbench.release import contract
from distressbench.release.manifest import read_manifest, write_manifest
from distressbench.release.release import load_release
from distressbench.submit import judge_note, submit
from fixtures.releases.hand_built import MODEL_IDS, make_release
from fixtures.releases.submission import split_release
from fixtures.releases.writer import read_table

SUBMITTED = MODEL_IDS[1]


@pytest.fixture
def split(tmp_path: Path) -> tuple[Path, Path]:
    """(base, submission): the fixture release without one model, and that model, whose labels
    come from the base's judges judge-a and judge-b' (both label every model)."""
    original = make_release(tmp_path / "original", release_id="fixture-original")
    split_release(original, SUBMITTED, tmp_path / "base", tmp_path / "submission", base_id="fixture-base")
    return tmp_path / "base", tmp_path / "submission"


def _judged_by(submission: Path, keep: str, judge_id: str) -> None:
    """Keep the submission's labels of judge `keep` only, under the judge id `judge_id`."""
    labels = read_table(submission, "judge_labels")
    labels = labels.filter(pc.equal(labels["judge_id"], keep))
    judges = pa.array([judge_id] * len(labels), type=labels.schema.field("judge_id").type)
    labels = labels.set_column(labels.schema.get_field_index("judge_id"), "judge_id", judges)
    pq.write_table(labels, submission / contract.file_name("judge_labels"))


def _name_primary_judge(base: Path, judge_id: str) -> None:
    old = read_manifest(base)
    write_manifest(base, str(old["release"]), synthetic=True, created_at=str(old["created_at"]), primary_judge=judge_id)


def _note(base: Path, submission: Path) -> str | None:
    return judge_note(load_release(base), load_release(submission))


def test_a_submission_judged_by_the_base_judges_gets_no_note(split: tuple[Path, Path]) -> None:
    base, submission = split
    assert _note(base, submission) is None
    _judged_by(submission, "judge-a", "judge-a")  # the primary judge alone (the most labels)
    assert _note(base, submission) is None


def test_a_submission_judged_by_another_judge_is_named_in_one_line(
    split: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base, submission = split
    _judged_by(submission, "judge-a", "scripted")
    submit(base, submission, tmp_path / "derived")
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note:")]
    assert notes == [
        'note: the submission is judged by "scripted", not by the base release\'s ranking judge(s) "judge-a", '
        '"judge-b\'": its models will be shown unranked, with their score and judge (docs/inspect.md says how to '
        "make a submission comparable)"
    ]


def test_a_submission_without_the_primary_judge_gets_the_note_unless_the_manifest_names_its_judge(
    split: tuple[Path, Path],
) -> None:
    base, submission = split
    _judged_by(submission, "judge-b'", "judge-b'")  # a ranking judge, but not the primary one
    note = _note(base, submission)
    assert note is not None and note.startswith('note: the submission is judged by "judge-b\'", not by')
    _name_primary_judge(base, "judge-b'")
    assert _note(base, submission) is None


def test_the_base_primary_judge_stays_the_derived_release_s(split: tuple[Path, Path], tmp_path: Path) -> None:
    base, submission = split
    unnamed = submit(base, submission, tmp_path / "unnamed", echo=False).out_dir
    assert "primary_judge" not in read_manifest(unnamed)
    _name_primary_judge(base, "judge-b'")
    derived = submit(base, submission, tmp_path / "derived", echo=False).out_dir
    assert json.loads((derived / contract.MANIFEST).read_text(encoding="utf-8"))["primary_judge"] == "judge-b'"
