"""`distressbench import-inspect LOG... --base RELEASE_DIR --out SUBMISSION_DIR`: Inspect logs
of the crisis_support task turned into a submission folder for `distressbench submit`.

Each log's model (`eval.model`) becomes a model of kind 'model'; each sample record of the
chosen epoch (the per-epoch records, never the reductions, which drop the score metadata)
gives that model's reply to the task (sample id = task_id) and one judge label per parsed
vote of the scorer's metadata: judge_id = the judge model (or `--judge-id`), sample_index = the vote's index
(a vote the judge did not end with a verdict is left out). Several logs of one model (runs
on subsets of the tasks) are joined. `submission.json` records which log, sample and epoch
each reply came from (`reply_sources`); `submit` carries it into the release manifest.

Skipped, by log name and why (so that `logs/*.eval` works beside earlier runs): a file that
is not a log Inspect can read, a log that is not a crisis_support run, did not finish, was
run on other tasks, turns or criteria than the base release's (by the sha256 the run
recorded), or has no sample of the chosen epoch. Refused, by log name and nothing written:
every log skipped; in a log imported, a sample that errored, is not a base task, or lacks a
criterion of its task's rubric (or has no parsed vote on it); a task replied to twice; a
model missing tasks.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from inspect_ai.log import EvalLog, read_eval_log

from distressbench.errors import DistressbenchError
from distressbench.evals.crisis_support import RUN_TABLES, SCORER_NAME, TASK_NAME
from distressbench.messages import error_line
from distressbench.release import contract, folders
from distressbench.release.manifest import read_manifest

SUBMISSION_MANIFEST = "submission.json"
SOURCES_KEY = "reply_sources"
EXAMPLES = 5


class ImportRefused(DistressbenchError):
    """A log cannot become (part of) a submission, or no log can; nothing was written.
    `skipped` names the logs left out and why."""

    def __init__(self, problems: list[str], skipped: list[str] | None = None) -> None:
        super().__init__(f"{len(problems)} problem(s):\n  " + "\n  ".join(problems))
        self.problems = problems
        self.skipped = skipped or []


@dataclass(frozen=True)
class Imported:
    rows: dict[str, int]  # table -> rows written
    skipped: list[str]  # each log left out, why: "<check>: <log> ..."


@dataclass
class _Base:
    tasks: list[str]
    criteria: dict[str, set[str]]  # task_id -> its criterion ids
    digests: dict[str, str]  # file name -> sha256, for RUN_TABLES


@dataclass
class _Collected:
    models: dict[str, str] = field(default_factory=dict)  # model_id -> provider
    replies: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (model, task) -> reply
    labels: list[dict[str, Any]] = field(default_factory=list)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)


def _examples(keys: list[str], count: int) -> str:
    shown = ", ".join(repr(k) for k in keys[:EXAMPLES])
    return shown + (f" and {count - EXAMPLES} more" if count > EXAMPLES else "")


def _read_base(base_dir: Path) -> _Base:
    files = read_manifest(base_dir)["files"]
    tasks = pq.read_table(base_dir / contract.file_name("tasks"), columns=["task_id"]).column(0).to_pylist()
    criteria: dict[str, set[str]] = defaultdict(set)
    rubric = pq.read_table(base_dir / contract.file_name("criteria"), columns=["criterion_id", "task_id"])
    for row in rubric.to_pylist():
        criteria[row["task_id"]].add(row["criterion_id"])
    digests = {contract.file_name(t): files[contract.file_name(t)]["sha256"] for t in RUN_TABLES}
    return _Base(sorted(tasks), dict(criteria), digests)


def response_id(model_id: str, task_id: str) -> str:
    return f"inspect:{model_id}:{task_id}"


def _check_run(name: str, log: EvalLog, base: _Base, epoch: int) -> list[str]:
    """The log is a finished crisis_support run on the base release's tasks, turns and
    criteria, with samples of the epoch."""
    run = (log.eval.metadata or {}).get("distressbench")
    if not isinstance(run, dict):
        return [
            f"log_task: {name} is a run of task {log.eval.task!r}, not of distressbench/{TASK_NAME} "
            "(its log has no distressbench metadata)"
        ]
    if log.status != "success":
        return [f"log_status: {name} ended with status {log.status!r}; import a finished run"]
    recorded = run.get("tables_sha256") or {}
    differ = sorted(n for n in base.digests if recorded.get(n) != base.digests[n])
    if differ:
        return [
            f"log_release: {name} was run on release {run.get('release')!r}, whose "
            f"{', '.join(differ)} differ from the base release's (sha256); run it on the base release's tasks"
        ]
    if not any(s.epoch == epoch for s in log.samples or []):
        return [f"log_epoch: {name} has no sample records of epoch {epoch}"]
    return []


def _collect_log(
    name: str, log: EvalLog, epoch: int, base: _Base, into: _Collected, judge_id: str | None = None
) -> list[str]:
    problems: list[str] = []
    model_id = log.eval.model
    into.models[model_id] = model_id.split("/")[0]
    samples = [s for s in (log.samples or []) if s.epoch == epoch]
    errored = sorted(str(s.id) for s in samples if s.error is not None)
    if errored:
        problems.append(
            f"sample_error: {name}: {len(errored)} samples ended in an error: " + _examples(errored, len(errored))
        )
    unknown = sorted(str(s.id) for s in samples if str(s.id) not in base.criteria)
    if unknown:
        problems.append(
            f"sample_task: {name}: {len(unknown)} samples are not tasks of the base release: "
            + _examples(unknown, len(unknown))
        )
    short: list[str] = []
    for sample in samples:
        task_id = str(sample.id)
        score = (sample.scores or {}).get(SCORER_NAME)
        if sample.error is not None or task_id not in base.criteria:
            continue
        graded = {c["criterion_id"]: c for c in ((score.metadata or {}).get("criteria", []) if score else [])}
        missing = sorted(
            c
            for c in base.criteria[task_id]
            if not any(v.get("met") is not None for v in graded.get(c, {}).get("votes", []))
        )
        if missing:
            short.append(f"{task_id!r} ({', '.join(repr(c) for c in missing[:EXAMPLES])})")
            continue
        if (model_id, task_id) in into.replies:
            problems.append(
                f"reply_twice: {name}: model {model_id!r} already has a reply to task {task_id!r} "
                f"(from {into.replies[(model_id, task_id)]['log']})"
            )
            continue
        rid = response_id(model_id, task_id)
        into.replies[(model_id, task_id)] = {"response_id": rid, "content": sample.output.completion, "log": name}
        into.sources[rid] = {"log": name, "sample": sample.id, "epoch": sample.epoch}
        judge = judge_id if judge_id is not None else str(score.metadata["judge"]) if score and score.metadata else ""
        for criterion_id in sorted(base.criteria[task_id]):
            for vote in graded[criterion_id]["votes"]:
                if vote.get("met") is not None:
                    into.labels.append(
                        {
                            "response_id": rid,
                            "criterion_id": criterion_id,
                            "judge_id": judge,
                            "sample_index": int(vote["sample_index"]),
                            "met": bool(vote["met"]),
                        }
                    )
    if short:
        problems.append(
            f"criteria_missing: {name}: {len(short)} samples lack criteria of their task's rubric "
            f"(or a parsed vote on them): {'; '.join(short[:EXAMPLES])}"
        )
    return problems


def _write(out_dir: Path, collected: _Collected) -> None:
    staging = folders.make_beside(out_dir)
    try:
        models = [
            {"model_id": m, "display_name": m, "provider": p, "kind": "model"}
            for m, p in sorted(collected.models.items())
        ]
        responses = [
            {"response_id": r["response_id"], "task_id": task_id, "model_id": model_id, "content": r["content"]}
            for (model_id, task_id), r in sorted(collected.replies.items())
        ]
        for table, rows in (("models", models), ("responses", responses), ("judge_labels", collected.labels)):
            pq.write_table(
                pa.Table.from_pylist(rows, schema=contract.SCHEMAS[table]), staging / contract.file_name(table)
            )
        text = json.dumps({SOURCES_KEY: collected.sources}, indent=1, ensure_ascii=False)
        (staging / SUBMISSION_MANIFEST).write_text(text + "\n", encoding="utf-8")
        os.rename(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def import_inspect(
    logs: list[Path], base_dir: Path, out_dir: Path, *, epoch: int = 1, judge_id: str | None = None
) -> Imported:
    """Write the submission folder out_dir from the logs that are finished crisis_support
    runs on the base; returns rows per table and the logs skipped. judge_id, when given, is
    every label's judge_id (else the judge model each log names). Raises ImportRefused
    naming every problem (nothing written), or every log skipped when none is left."""
    if folders.is_taken(out_dir):
        raise ImportRefused([f"out_dir_new: {out_dir} already exists; the submission is written to a new folder"])
    base = _read_base(base_dir)
    collected = _Collected()
    problems: list[str] = []
    names = [path.name for path in logs]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        problems.append(f"log_names: {len(doubled)} log file names given twice: {_examples(doubled, len(doubled))}")
    skipped: list[str] = []
    for path in logs:
        try:
            log = read_eval_log(str(path), resolve_attachments=True)
        except Exception as error:  # any failure to read the user's file is the file's
            skipped.append(f"log_readable: {path.name} is not a log Inspect can read: {error_line(str(error))}")
            continue
        found = _check_run(path.name, log, base, epoch)
        if found:
            skipped += found
            continue
        problems += _collect_log(path.name, log, epoch, base, collected, judge_id)
    if not collected.models and not problems:
        raise ImportRefused(skipped, skipped)
    for model_id in sorted(collected.models):
        unanswered = [t for t in base.tasks if (model_id, t) not in collected.replies]
        if unanswered and not problems:
            problems.append(
                f"tasks_missing: model {model_id!r} has no reply to {len(unanswered)} of the base "
                f"release's {len(base.tasks)} tasks: {_examples(unanswered, len(unanswered))}; "
                "import the logs of every task" + (f" ({len(skipped)} log(s) skipped)" if skipped else "")
            )
    if problems:
        raise ImportRefused(problems, skipped)
    _write(out_dir, collected)
    rows = {"models": len(collected.models), "responses": len(collected.replies), "judge_labels": len(collected.labels)}
    return Imported(rows, skipped)
