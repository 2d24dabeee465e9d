"""Inspect AI end to end, offline: the crisis_support task run with mockllm as the model under
test and as the judge -> import-inspect -> submit -> build, and each refusal of import-inspect.

The scripted models (inspect_mocks) make every score computable by hand: the k-th criterion
of a task is met when k % 4 is 0 or 3, and the fixture's task with 3 user turns gets an
empty reply, which meets nothing.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai._util.error import EvalError
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessage, ModelOutput, get_model

from distressbench import cli, settings
from distressbench.evals import crisis_support as crisis_support_module
from distressbench.evals.crisis_support import (
    crisis_support,
    parse_verdict,
    release_folder,
    release_samples,
    verdict,
    weighted_fraction,
)
from distressbench.evals.import_inspect import ImportRefused, import_inspect, response_id
from distressbench.evals.scripted import REPLIES, scripted_vote
from distressbench.outputs.show import show
from distressbench.publish.pipeline import build_release
from distressbench.release.manifest import read_manifest
from distressbench.submit import SubmissionRefused, submit
from fixtures.inspect_mocks import JUDGE_VOTES, Judge, expected_met, reply
from fixtures.releases.hand_built import MODEL_IDS, N_USER_TURNS, TASK_IDS, make_release
from fixtures.releases.writer import read_table

MODEL = "mockllm/model"


def test_verdict_and_weighted_fraction_by_hand() -> None:
    assert verdict([True, True, False], "unmet") and not verdict([True, False, False], "unmet")
    assert not verdict([True, False], "unmet") and verdict([True, False], "met")
    assert weighted_fraction([19, 1, 5], [True, False, True]) == 24 / 25
    assert parse_verdict("fine.\nVERDICT: NOT MET") is False
    assert parse_verdict("VERDICT: NOT MET then VERDICT: met") is True
    assert parse_verdict("no verdict here") is None


def expected_scores(release: Path) -> dict[str, float]:
    """Each task's score from the mock verdicts: weights of the met criteria over all weights."""
    weights: dict[str, list[tuple[int, int]]] = {t: [] for t in TASK_IDS}
    for row in read_table(release, "criteria").to_pylist():
        k = int(row["text"].rsplit("point ", 1)[1].rstrip('").')) - 1
        weights[row["task_id"]].append((k, row["weight"]))
    scores = {}
    for t, task_id in enumerate(TASK_IDS):
        met = 0 if N_USER_TURNS[t] == 3 else sum(w for k, w in weights[task_id] if expected_met(k))
        scores[task_id] = met / sum(w for _, w in weights[task_id])
    return scores


def run_mock_eval(release: Path, log_dir: Path, **task_args: object) -> Path:
    """crisis_support through Inspect's Python API, mockllm with custom outputs as both models."""
    logs = inspect_eval(
        crisis_support(release=str(release), judge_samples=3, **task_args),
        model=get_model(MODEL, custom_outputs=reply, memoize=False),
        model_roles={"judge": get_model(MODEL, custom_outputs=Judge(), memoize=False)},
        log_dir=str(log_dir),
        display="none",
    )
    assert logs[0].status == "success", logs[0].error
    return Path(logs[0].location)


@dataclass(frozen=True)
class Run:
    base: Path
    log: Path
    submission: Path
    derived: Path
    base_file: Path
    derived_file: Path
    warehouse: Path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("inspect")
    base = make_release(root / "base", release_id="fixture-inspect")
    log = run_mock_eval(base, root / "logs")
    import_inspect([log], base, root / "submission")
    derived = submit(base, root / "submission", root / "derived", echo=False).out_dir
    warehouse = root / "warehouse" / "distressbench.duckdb"
    base_file = shutil.copyfile(build_release(base, warehouse)[0], root / "base.duckdb")
    derived_file, _ = build_release(derived, warehouse)
    return Run(base, log, root / "submission", derived, base_file, derived_file, warehouse)


def _scores(database: Path) -> dict[str, tuple[str, float]]:
    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.execute("select model_id, kind, score from marts.model_scores").fetchall()
    return {model_id: (kind, score) for model_id, kind, score in rows}


def test_each_sample_scores_the_weighted_fraction_of_its_verdicts(run: Run) -> None:
    log = read_eval_log(str(run.log))
    want = expected_scores(run.base)
    got = {s.id: s.scores["rubric_judge"].value for s in log.samples or [] if s.scores}
    assert got.keys() == want.keys()
    for task_id, score in want.items():
        assert got[task_id] == pytest.approx(score, abs=1e-12), task_id
    votes = log.samples[0].scores["rubric_judge"].metadata["criteria"][0]["votes"]  # type: ignore[index,union-attr]
    assert [v["sample_index"] for v in votes] == [0, 1, 2] and all(v["explanation"] for v in votes)


def test_the_mock_model_lands_in_model_scores_with_the_hand_computed_score(run: Run) -> None:
    scores = _scores(run.derived_file)
    want = sum(expected_scores(run.base).values()) / len(TASK_IDS)
    assert scores[MODEL][0] == "model"
    assert scores[MODEL][1] == pytest.approx(want, abs=1e-12)
    before = _scores(run.base_file)
    assert {m: s for m, s in scores.items() if m != MODEL} == before
    assert set(MODEL_IDS) <= before.keys()


def test_judge_labels_hold_every_parsed_vote_with_the_judge_and_its_index(run: Run) -> None:
    labels = read_table(run.submission, "judge_labels").to_pylist()
    criteria = read_table(run.base, "criteria").to_pylist()
    parsed = [sum(v is not None for v in JUDGE_VOTES[k % 4]) for k in range(8)]
    want = sum(parsed[int(c["text"].rsplit("point ", 1)[1].rstrip('").')) - 1] for c in criteria)
    assert len(labels) == want
    assert {label["judge_id"] for label in labels} == {MODEL}
    assert {label["sample_index"] for label in labels} == {0, 1, 2}


def test_the_release_manifest_and_show_name_the_log_and_sample(run: Run) -> None:
    sources = read_manifest(run.derived)["reply_sources"]
    rid = response_id(MODEL, TASK_IDS[0])
    assert sources[rid] == {"log": run.log.name, "sample": TASK_IDS[0], "epoch": 1}
    assert len(sources) == len(TASK_IDS)
    out = io.StringIO()
    show(run.warehouse, TASK_IDS[0], MODEL, out=out)
    assert f"(from {run.log.name}, sample {TASK_IDS[0]}, epoch 1)" in " ".join(out.getvalue().split())
    other = io.StringIO()
    show(run.warehouse, TASK_IDS[0], MODEL_IDS[0], out=other)
    assert "(from " not in other.getvalue()


def _broken(run: Run, tmp_path: Path, name: str, edit: object) -> Path:
    """A copy of the run's log with one thing broken by `edit(log)`."""
    log = read_eval_log(str(run.log))
    edit(log)  # type: ignore[operator]
    path = tmp_path / f"{name}.eval"
    write_eval_log(log, str(path))
    return path


def _other_task(log: EvalLog) -> None:
    log.eval.task, log.eval.metadata = "other_eval", None


def _failed(log: EvalLog) -> None:
    log.status = "error"


def _other_release(log: EvalLog) -> None:
    log.eval.metadata["distressbench"]["tables_sha256"]["criteria.parquet"] = "0" * 64  # type: ignore[index]


def _sample_error(log: EvalLog) -> None:
    log.samples[1].error = EvalError(message="boom", traceback="", traceback_ansi="")  # type: ignore[index]


def _unknown_sample(log: EvalLog) -> None:
    log.samples[2].id = "T-not-in-the-release"  # type: ignore[index]


def _criterion_dropped(log: EvalLog) -> None:
    log.samples[0].scores["rubric_judge"].metadata["criteria"].pop()  # type: ignore[index,union-attr]


def _votes_unparsed(log: EvalLog) -> None:
    for vote in log.samples[3].scores["rubric_judge"].metadata["criteria"][0]["votes"]:  # type: ignore[index,union-attr]
        vote["met"] = None


BROKEN = {
    "another task": ("log_task", _other_task),
    "an unfinished run": ("log_status", _failed),
    "another release": ("log_release", _other_release),
    "a sample in error": ("sample_error", _sample_error),
    "a sample of no task": ("sample_task", _unknown_sample),
    "a criterion dropped": ("criteria_missing", _criterion_dropped),
    "no parsed vote": ("criteria_missing", _votes_unparsed),
}


@pytest.mark.parametrize("fault", BROKEN)
def test_a_broken_log_is_refused_by_name_and_nothing_is_written(run: Run, tmp_path: Path, fault: str) -> None:
    check, edit = BROKEN[fault]
    log = _broken(run, tmp_path, "broken", edit)
    with pytest.raises(ImportRefused) as refused:
        import_inspect([log], run.base, tmp_path / "out")
    assert len(refused.value.problems) == 1
    assert refused.value.problems[0].startswith(f"{check}: ")
    assert "broken.eval" in refused.value.problems[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("content", [b"not a log\n", b"PK\x03\x04 cut short"], ids=["a text file", "a truncated zip"])
def test_a_file_that_is_no_log_is_skipped_by_name_beside_the_good_ones(
    run: Run, tmp_path: Path, content: bytes
) -> None:
    bad = tmp_path / "bad.eval"
    bad.write_bytes(content)
    done = import_inspect([run.log, bad], run.base, tmp_path / "out")
    (skipped,) = done.skipped
    assert skipped.startswith("log_readable: bad.eval is not a log Inspect can read: ")
    assert done.rows["responses"] == len(TASK_IDS) and (tmp_path / "out" / "responses.parquet").is_file()


def test_a_glob_with_an_earlier_failed_run_imports_the_finished_ones(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`import-inspect logs/*.eval` beside a failed run and a run of another task: each is
    named on stderr with why, the finished run is imported; none left is a refusal (exit 1)."""
    failed = _broken(run, tmp_path, "failed", _failed)
    other = _broken(run, tmp_path, "other", _other_task)
    args = ["--base", str(run.base), "--out", str(tmp_path / "sub")]
    assert cli.main(["import-inspect", str(failed), str(run.log), str(other), *args]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "import-inspect: skipped, log_status: failed.eval ended with status 'error'; import a finished run",
        "import-inspect: skipped, log_task: other.eval is a run of task 'other_eval', not of "
        "distressbench/crisis_support (its log has no distressbench metadata)",
    ]
    assert out.startswith(f"wrote submission {tmp_path / 'sub'} from 1 of 3 logs (1 models, ")
    assert read_table(tmp_path / "sub", "responses").num_rows == len(TASK_IDS)
    none = tmp_path / "none"
    assert cli.main(["import-inspect", str(failed), str(other), "--base", str(run.base), "--out", str(none)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines()[-1] == "import-inspect: refused, none of the 2 log(s) can be imported"
    assert "skipped, log_status: failed.eval" in err and not none.exists()


def test_the_same_replies_twice_the_wrong_epoch_and_an_existing_folder_are_refused(run: Run, tmp_path: Path) -> None:
    twice = shutil.copyfile(run.log, tmp_path / "again.eval")
    with pytest.raises(ImportRefused, match=r"reply_twice: again\.eval: model 'mockllm/model' already has a reply"):
        import_inspect([run.log, twice], run.base, tmp_path / "out")
    with pytest.raises(ImportRefused, match=r"log_epoch: .* has no sample records of epoch 2"):
        import_inspect([run.log], run.base, tmp_path / "out", epoch=2)
    (tmp_path / "out").mkdir()
    with pytest.raises(ImportRefused, match="out_dir_new"):
        import_inspect([run.log], run.base, tmp_path / "out")
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ImportRefused, match="out_dir_new"):
        import_inspect([run.log], run.base, tmp_path / "broken")


def test_subset_runs_join_and_a_missing_task_is_refused(run: Run, tmp_path: Path) -> None:
    first = run_mock_eval(run.base, tmp_path / "a", limit=4)
    rest = run_mock_eval(run.base, tmp_path / "b", task_ids=",".join(sorted(TASK_IDS)[4:]))
    with pytest.raises(ImportRefused, match=r"tasks_missing: model 'mockllm/model' has no reply to 2 of the base"):
        import_inspect([first], run.base, tmp_path / "out")
    rows = import_inspect([first, rest], run.base, tmp_path / "out").rows
    assert rows == {
        "models": 1,
        "responses": len(TASK_IDS),
        "judge_labels": len(read_table(run.submission, "judge_labels")),
    }


def run_inspect_cli(task: str, release: str, log_dir: Path, cwd: Path, *task_args: str) -> Path:
    """`inspect eval TASK --model distressbench/scripted -T judge=distressbench/scripted-judge`
    as a user types it in `cwd`: the installed package's entry point (no PYTHONPATH) and no
    network (any download, of a tokenizer say, fails)."""
    blocked = "http://127.0.0.1:9"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"PWD": str(cwd), "HTTPS_PROXY": blocked, "HTTP_PROXY": blocked, "NO_PROXY": ""}
    env |= {"TIKTOKEN_CACHE_DIR": str(log_dir / "no-tokenizer"), "HF_HUB_OFFLINE": "1"}
    args = ["-T", f"release={release}", "-T", "judge=distressbench/scripted-judge", "--display", "none"]
    for arg in task_args:
        args += ["-T", arg]
    done = subprocess.run(
        [str(Path(sys.executable).parent / "inspect"), "eval", task, "--model", "distressbench/scripted", *args]
        + ["--log-dir", str(log_dir)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (log,) = log_dir.glob("*.eval")
    return log


def test_the_offline_demo_from_inspect_eval_to_import(run: Run, tmp_path: Path) -> None:
    """docs/inspect.md's first thing to try: the scripted model and judge by their provider
    names, every sample scored from its votes, then import-inspect and submit."""
    shutil.copytree(run.base, tmp_path / "release")
    log = run_inspect_cli("distressbench/crisis_support", "release", tmp_path / "logs", tmp_path)
    read = read_eval_log(str(log))
    assert read.status == "success" and read.eval.model == "distressbench/scripted"
    samples = read.samples or []
    assert sorted(str(s.id) for s in samples) == sorted(TASK_IDS) and all(s.error is None for s in samples)
    weights = {c["criterion_id"]: c["weight"] for c in read_table(run.base, "criteria").to_pylist()}
    for sample in samples:
        assert sample.output.completion in REPLIES
        score = sample.scores["rubric_judge"]  # type: ignore[index]
        graded = score.metadata["criteria"]  # type: ignore[index]
        assert score.metadata["judge"] == "distressbench/scripted-judge"  # type: ignore[index]
        for criterion in graded:
            votes = [v["met"] for v in criterion["votes"]]
            assert len(votes) == 3 and None not in votes
            assert criterion["met"] == (sum(votes) >= 2)
        met = [weights[c["criterion_id"]] for c in graded if c["met"]]
        assert score.value == pytest.approx(sum(met) / sum(weights[c["criterion_id"]] for c in graded), abs=1e-12)
    import_inspect([log], run.base, tmp_path / "sub")
    derived = submit(run.base, tmp_path / "sub", tmp_path / "derived", echo=False).out_dir
    assert "distressbench/scripted" in read_table(derived, "models")["model_id"].to_pylist()


def test_the_task_file_reads_a_relative_release_from_where_the_command_started(run: Run, tmp_path: Path) -> None:
    """`inspect eval src/distressbench/evals/crisis_support.py -T release=<relative>`: Inspect
    creates the task in the file's folder, yet the release is found where the user typed it."""
    release = shutil.copytree(run.base, tmp_path / "data" / "mine")
    root = settings.PROJECT_ROOT  # Inspect takes a task file by a path relative to where it runs
    task_file = Path(crisis_support_module.__file__).resolve().relative_to(root)
    log = run_inspect_cli(str(task_file), os.path.relpath(release, root), tmp_path / "logs", root, "limit=1")
    read = read_eval_log(str(log))
    assert read.status == "success" and len(read.samples or []) == 1
    assert read.eval.metadata["distressbench"]["release"] == "fixture-inspect"  # type: ignore[index]


def test_a_release_folder_that_is_nowhere_is_named() -> None:
    with pytest.raises(FileNotFoundError, match=r"release: no release folder 'no/such/release' in "):
        release_folder("no/such/release")


def test_the_scripted_models_reply_and_vote_without_a_network() -> None:
    """The provider by name: replies from REPLIES, a judge's k-th vote on a prompt is
    scripted_vote(prompt, k), and every output carries usage (no tokenizer is needed)."""
    model = get_model("distressbench/scripted")
    judge = get_model("distressbench/scripted-judge", memoize=False)
    reply_output = asyncio.run(model.generate("I can't cope any more."))
    assert reply_output.completion in REPLIES and reply_output.usage is not None
    prompt = "grade this"
    votes = [parse_verdict(asyncio.run(judge.generate(prompt)).completion) for _ in range(4)]
    assert votes == [scripted_vote(prompt, k) for k in range(4)]
    with pytest.raises(ValueError, match="is no scripted model"):
        get_model("distressbench/other", memoize=False)


def test_the_task_is_registered_as_an_inspect_entry_point(tmp_path: Path) -> None:
    """As `inspect eval distressbench/crisis_support` finds it: by the entry point of the
    installed package (a PYTHONPATH to src/ would show its egg-info, which Inspect does
    not read as an installed package, so the task would lose its namespace)."""
    code = (
        "from inspect_ai._util.registry import registry_lookup, registry_info;"
        "t = registry_lookup('task', 'distressbench/crisis_support'); print(registry_info(t).name)"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env, cwd=tmp_path
    )
    assert done.stdout.strip() == "distressbench/crisis_support", done.stderr[-2000:]


def test_submit_refuses_reply_sources_of_replies_it_does_not_hold(run: Run, tmp_path: Path) -> None:
    submission = shutil.copytree(run.submission, tmp_path / "submission")
    (submission / "submission.json").write_text(
        '{"reply_sources": {"inspect:nobody:T-6": {"log": "x.eval", "sample": "T-6", "epoch": 1}}}', encoding="utf-8"
    )
    with pytest.raises(SubmissionRefused) as refused:
        submit(run.base, submission, tmp_path / "derived", echo=False)
    (failure,) = refused.value.failures
    assert failure.check == "reply_sources" and failure.n_failed == 1 and '"inspect:nobody:T-6"' in failure.message
    assert not (tmp_path / "derived").exists()


def test_samples_are_the_conversations_in_task_id_order_and_subsets_name_unknown_ids(good_release: Path) -> None:
    samples = release_samples(good_release)
    assert [s.id for s in samples] == sorted(TASK_IDS)
    four = next(s for s in samples if s.id == TASK_IDS[3])  # 3 user turns
    assert [m.role for m in four.input] == ["user", "assistant", "user", "assistant", "user"]  # type: ignore[union-attr]
    assert [s.id for s in release_samples(good_release, limit=2)] == sorted(TASK_IDS)[:2]
    assert [s.id for s in release_samples(good_release, task_ids=f"{TASK_IDS[5]},{TASK_IDS[2]}")] == sorted(
        [TASK_IDS[2], TASK_IDS[5]]
    )
    with pytest.raises(ValueError, match=r"task_ids: 1 not in the release's tasks table: 'T-nope'"):
        release_samples(good_release, task_ids="T-nope")


def test_the_tie_rule_met_reads_a_split_vote_as_met(good_release: Path, tmp_path: Path) -> None:
    log = read_eval_log(str(run_mock_eval(good_release, tmp_path, tie_rule="met", task_ids=TASK_IDS[5])))
    (sample,) = log.samples or []
    criteria = [c for c in read_table(good_release, "criteria").to_pylist() if c["task_id"] == TASK_IDS[5]]
    points = [(int(c["text"].rsplit("point ", 1)[1].rstrip('").')) - 1, c["weight"]) for c in criteria]
    want = sum(w for k, w in points if k % 4 in (0, 2, 3)) / sum(w for _, w in points)
    assert sample.scores["rubric_judge"].value == pytest.approx(want, abs=1e-12)  # type: ignore[index]


def test_an_eval_without_a_judge_fails_before_the_model_under_test_replies(good_release: Path, tmp_path: Path) -> None:
    asked: list[int] = []

    def counted_reply(messages: list[ChatMessage], *rest: Any) -> ModelOutput:
        asked.append(len(messages))
        return reply(messages, *rest)

    (log,) = inspect_eval(
        crisis_support(release=str(good_release)),
        model=get_model(MODEL, custom_outputs=counted_reply, memoize=False),
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error" and log.error is not None
    assert "Model role 'judge' is required and was not specified" in log.error.message
    assert asked == []
