"""`distressbench submit`: the checks against the base release, and the release it writes.

The hand-built release (fixtures/releases/hand_built.py) is split into a base without model 2
and a submission holding model 2 (fixtures/releases/submission.py); each broken submission
breaks one thing and must be refused with its own message, leaving nothing behind.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from distressbench import cli
from distressbench.release import contract, folders
from distressbench.release.manifest import read_manifest
from distressbench.submit import MAX_RELEASE_ID, SubmissionRefused, derived_release_id, submit
from fixtures.processes import ended_pid
from fixtures.releases.hand_built import MODEL_IDS, TASK_IDS, criterion_id
from fixtures.releases.submission import leftovers
from fixtures.releases.writer import read_table


def test_release_id_from_the_command_line(split: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, base, submission = split
    done = submit(base, submission, tmp_path / "derived", release_id="fixture-2.0", echo=False)
    assert done.release_id == "fixture-2.0"
    assert read_manifest(tmp_path / "derived")["release"] == "fixture-2.0"


def test_the_default_release_id_fits_the_contract(split: tuple[Path, Path, Path]) -> None:
    _, _, submission = split
    long_id = "b" * MAX_RELEASE_ID
    derived = derived_release_id(long_id, submission)
    assert len(derived) <= MAX_RELEASE_ID and re.fullmatch(contract.RELEASE_ID_PATTERN, derived)
    assert derived != long_id
    assert derived_release_id("x", submission) == derived_release_id("x", submission)


def _write(submission: Path, table: str, data: pa.Table) -> None:
    pq.write_table(data, submission / contract.file_name(table))


def _existing_model_id(submission: Path) -> None:
    for table in ("models", "responses"):
        data = read_table(submission, table)
        index = data.schema.get_field_index("model_id")
        _write(submission, table, data.set_column(index, "model_id", pa.array([MODEL_IDS[0]] * data.num_rows)))


def _missing_reply(submission: Path) -> None:
    responses = read_table(submission, "responses")
    gone = responses["response_id"][0].as_py()
    _write(submission, "responses", responses.slice(1))
    for table in ("judge_labels", "calibration_labels"):
        data = read_table(submission, table)
        _write(submission, table, data.filter(pc.not_equal(data["response_id"], gone)))


def _label_for_another_task(submission: Path) -> None:
    labels = read_table(submission, "judge_labels")
    first = labels.slice(0, 1).to_pylist()[0]
    # the submission's reply to task 1 labelled on a criterion of task 2
    row = first | {"response_id": _reply_to(submission, 0), "criterion_id": criterion_id(1, 0)}
    _write(submission, "judge_labels", pa.concat_tables([labels, pa.Table.from_pylist([row], labels.schema)]))


def _reply_to(submission: Path, task: int) -> str:
    responses = read_table(submission, "responses")
    return responses.filter(pc.equal(responses["task_id"], TASK_IDS[task]))["response_id"][0].as_py()


def _unlabelled_pair(submission: Path) -> None:
    labels = read_table(submission, "judge_labels")
    pair = pc.and_(
        pc.equal(labels["response_id"], _reply_to(submission, 2)), pc.equal(labels["criterion_id"], criterion_id(2, 3))
    )
    assert pc.sum(pair.cast(pa.int64())).as_py() > 0
    _write(submission, "judge_labels", labels.filter(pc.invert(pair)))


def _label_for_a_base_reply(submission: Path) -> None:
    labels = read_table(submission, "judge_labels")
    # a new judge's label on the base's reply of model 1 to task 1 (the contract allows it; a submission does not)
    row = labels.slice(0, 1).to_pylist()[0] | {"response_id": 'R-1-1; ü"', "criterion_id": criterion_id(0, 0)}
    _write(
        submission,
        "judge_labels",
        pa.concat_tables([labels, pa.Table.from_pylist([row | {"judge_id": "j-new"}], labels.schema)]),
    )


def _wrong_column_type(submission: Path) -> None:
    labels = read_table(submission, "judge_labels")
    index = labels.schema.get_field_index("sample_index")
    wrong = labels["sample_index"].cast(pa.int64())
    _write(submission, "judge_labels", labels.set_column(index, "sample_index", wrong))


def _reused_response_id(submission: Path) -> None:
    responses = read_table(submission, "responses")
    ids = responses["response_id"].to_pylist()
    replaced = ['R-1-1; ü"'] + ids[1:]  # the base's reply of model 1 to task 1
    _write(submission, "responses", responses.set_column(0, "response_id", pa.array(replaced, pa.string())))


def _clinician_kind(submission: Path) -> None:
    models = read_table(submission, "models")
    index = models.schema.get_field_index("kind")
    _write(submission, "models", models.set_column(index, "kind", pa.array(["clinician_reference"])))


def _extra_file(submission: Path) -> None:
    shutil.copyfile(submission / "models.parquet", submission / "tasks.parquet")


def _missing_file(submission: Path) -> None:
    (submission / "judge_labels.parquet").unlink()


# (break the submission, check, table, column, n_failed, an example shown, words of the message)
BROKEN: dict[str, tuple[Callable[[Path], None], str, str | None, str | None, int, str, str]] = {
    "an existing model id": (
        _existing_model_id,
        "unique",
        "models",
        "model_id",
        2,  # the base's row and the submission's
        json.dumps(MODEL_IDS[0], ensure_ascii=False),
        "sharing a model_id with another row",
    ),
    "a missing reply": (
        _missing_reply,
        "responses_complete",
        "responses",
        "(task_id, model_id)",
        1,
        json.dumps(TASK_IDS[0], ensure_ascii=False),
        "(model, task) pair without a reply in responses",
    ),
    "a label for a criterion of another task": (
        _label_for_another_task,
        "same_task",
        "judge_labels",
        "criterion_id",
        1,
        json.dumps(criterion_id(1, 0), ensure_ascii=False),
        "on a criterion of another task than the reply's",
    ),
    "an unlabelled pair": (
        _unlabelled_pair,
        "labels_complete",
        "judge_labels",
        "(response_id, criterion_id)",
        1,
        json.dumps(criterion_id(2, 3), ensure_ascii=False),
        "pair without any judge label",
    ),
    "a label on a reply of the base": (
        _label_for_a_base_reply,
        "judge_labels_response",
        "judge_labels",
        "response_id",
        1,
        json.dumps('R-1-1; ü"', ensure_ascii=False),
        "labels of a reply that is not in the submission's responses.parquet",
    ),
    "a wrong column type": (
        _wrong_column_type,
        "submission_schema_types",
        "judge_labels",
        "sample_index",
        1,
        "sample_index is int64, expected int32",
        "the submission",
    ),
    "a reused response id": (
        _reused_response_id,
        "unique",
        "responses",
        "response_id",
        2,  # the base's row and the submission's
        json.dumps('R-1-1; ü"', ensure_ascii=False),
        "sharing a response_id with another row",
    ),
    "a clinician reference": (
        _clinician_kind,
        "model_kind",
        "models",
        "kind",
        1,
        json.dumps("clinician_reference"),
        "kind is not 'model'",
    ),
    "a table a submission cannot extend": (
        _extra_file,
        "submission_files_known",
        None,
        None,
        1,
        '"tasks.parquet"',
        "holds only",
    ),
    "a missing table": (
        _missing_file,
        "submission_files_present",
        "judge_labels",
        None,
        1,
        '"judge_labels.parquet"',
        "lacks",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_submission_is_refused_and_nothing_is_written(
    case: str, split: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, base, submission = split
    breaker, check, table, column, n_failed, example, words = BROKEN[case]
    breaker(submission)
    out = tmp_path / "derived"
    with pytest.raises(SubmissionRefused) as refused:
        submit(base, submission, out, echo=False)
    found = [c for c in refused.value.failures if c.check == check]
    assert found, [c.line() for c in refused.value.failures]
    result = found[0]
    assert (result.table, result.column, result.n_failed) == (table, column, n_failed)
    assert any(example in shown for shown in result.examples), result.examples
    assert words in result.message and example in result.message
    assert not out.exists()
    assert leftovers(tmp_path) == []


def test_an_existing_output_folder_is_not_overwritten(split: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, base, submission = split
    out = tmp_path / "derived"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(SubmissionRefused) as refused:
        submit(base, submission, out, echo=False)
    assert [c.check for c in refused.value.failures] == ["out_dir_new"]
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_a_broken_link_as_the_output_folder_is_refused(split: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """A link to nothing is taken too: renaming the written folder onto it would fail."""
    _, base, submission = split
    out = tmp_path / "derived"
    out.symlink_to(tmp_path / "nowhere")
    with pytest.raises(SubmissionRefused) as refused:
        submit(base, submission, out, echo=False)
    assert [c.check for c in refused.value.failures] == ["out_dir_new"]
    assert out.is_symlink() and not (tmp_path / "nowhere").exists()
    assert leftovers(tmp_path) == []


def test_a_killed_submissions_folder_is_removed_by_the_next_one(split: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """A submission killed mid-write leaves `.derived.<host>.<pid>.<random>.partial`; the next
    one into the same folder on the same host removes it once that process has ended, and
    keeps the folder of a live process, those of another output folder and those another
    host made (a process id of another machine says nothing here)."""
    _, base, submission = split
    ended = ended_pid()
    host = folders.HOST
    abandoned = tmp_path / f".derived.{host}.{ended}.dead0001.partial"
    abandoned.mkdir()
    (abandoned / "judge_labels.parquet").write_bytes(b"half a file")
    kept = [
        tmp_path / f".derived.{host}.{os.getpid()}.11fe0002.partial",  # a submission still writing
        tmp_path / f".derived.v2.{host}.{ended}.dead0003.partial",  # output folder derived.v2's
        tmp_path / f".derived.other-{host}.{ended}.dead0004.partial",  # another machine's, writing
    ]
    for folder in kept:
        folder.mkdir()
    submit(base, submission, tmp_path / "derived", echo=False)
    assert leftovers(tmp_path) == sorted(folder.name for folder in kept)


def test_a_broken_base_release_is_refused(split: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, base, submission = split
    with (base / "tasks.parquet").open("ab") as handle:
        handle.write(b"tampered")
    with pytest.raises(SubmissionRefused) as refused:
        submit(base, submission, tmp_path / "derived", echo=False)
    checks = {c.check for c in refused.value.failures}
    assert "base_file_sha256" in checks
    assert not (tmp_path / "derived").exists()


def test_the_command_reports_each_failure_and_exits_1(
    split: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, base, submission = split
    _missing_reply(submission)
    _unlabelled_pair(submission)
    code = cli.main(["submit", str(base), str(submission), "--out", str(tmp_path / "derived")])
    out, err = capsys.readouterr()
    assert code == 1
    assert (
        "FAIL responses_complete responses.(task_id, model_id): the release it would make has "
        "1 (model, task) pair without a reply in responses" in err
    )
    assert "FAIL labels_complete judge_labels.(response_id, criterion_id)" in err
    assert "nothing was written" in err
    assert not (tmp_path / "derived").exists()


def test_the_command_writes_the_release(
    split: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, base, submission = split
    code = cli.main(["submit", str(base), str(submission), "--out", str(tmp_path / "derived"), "--release", "fx-2"])
    assert code == 0
    assert "wrote release fx-2" in capsys.readouterr().out
    assert read_manifest(tmp_path / "derived")["release"] == "fx-2"
