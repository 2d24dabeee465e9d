"""`distressbench build`: write, audit, publish. docs/building.md describes the stages.

1. prepare -- take the build lock, end a dbt process a killed build left behind, clear what
   an earlier build left behind, start dbt (it parses the project while the gate checks the
   files);
2. gate -- the file checks (manifest, sha256, Arrow schemas); the staging models' SQL, as
   dbt compiled it, runs in DuckDB into the unpublished file `building.duckdb`
   (distressbench.dbt.staging.SqlStaging) while dbt parses the project, and the value checks
   (Great Expectations) run on what was built there;
3. publish check -- a release id already published with other content needs --force;
4. history -- the results of the releases published before are carried into the file;
5. dbt build -- `dbt build` of everything else, every data test a node (the staging models'
   tests included), in the same dbt process, on the rows the gate checked;
6. verify -- the manifest is the one read before the gate and every file still has its
   sha256: what is published is what was checked;
7. audit -- the publication record is written, row counts reconcile with the manifest and
   the file reopens read-only;
8. publish -- one atomic rename of a symlink.

`build_release` names the stages in order; each is a function here or in
distressbench.publish.layout (the folders, the lock, the publish), distressbench.publish.checks
(the checks outside dbt) and distressbench.publish.stages (the stage runner).

dbt's target folder `<name>.builds/dbt-target/` is kept between builds, so dbt parses the
project partially. The release build leaves out what no release can change
(stages.NOT_IN_A_RELEASE_BUILD: dbt's unit tests, which test the SQL on fixed inputs, and
the seeds' tests); plain `dbt build` and CI run them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from distressbench.dbt.compiled import staging_sql
from distressbench.dbt.process import DbtFailed, DbtOutcome, DbtProcess, end_leftover
from distressbench.dbt.relations import HEADLINE_METRICS, staging_models
from distressbench.dbt.staging import SqlStaging, link_folder
from distressbench.errors import UsageError
from distressbench.gate.results import GateReport
from distressbench.outputs.tables.formatting import interval_level
from distressbench.publish.checks import (
    already_published,
    audit,
    unwritable_folder,
    verify_release_unchanged,
    warehouse_refusal,
)
from distressbench.publish.history import carry_forward, history_tables
from distressbench.publish.layout import (
    BUILDING_FILE,
    DBT_TARGET,
    WORK_FOLDER,
    Record,
    WarehouseLayout,
    build_lock,
    discard_unpublished,
    publication_record,
    publish,
    published_history,
    published_state,
    record_publication,
    remove_stale_files,
    write_log,
)
from distressbench.publish.stages import NOT_IN_A_RELEASE_BUILD, StageFailed, say, stage
from distressbench.release.release import Release, load_release
from distressbench.settings import Settings

# dbt's threads in a release build (DISTRESSBENCH_THREADS overrides): two below this many
# judge labels, where they overlap dbt's per-node overhead; one from it on, where a second
# thread would run a big query beside the bootstrap's frames and raise the peak memory
TWO_DBT_THREADS_BELOW_LABELS = 20_000_000


def dbt_threads(release: Release) -> int:
    """Two dbt threads for a release of fewer than TWO_DBT_THREADS_BELOW_LABELS judge labels
    (by its manifest), else one (also when the manifest cannot be read: the gate will say why)."""
    labels = release.listed_rows("judge_labels")
    return 2 if labels is not None and labels < TWO_DBT_THREADS_BELOW_LABELS else 1


# `dbt build` of what the gate's staging run did not build: every other model and seed, and
# every data test as a node, but what no release build runs (stages.NOT_IN_A_RELEASE_BUILD)
REST_OF_THE_BUILD = ["--indirect-selection", "empty", *NOT_IN_A_RELEASE_BUILD]


def run_dbt(dbt: DbtProcess, release: Release) -> None:
    """`dbt build` of the rest of the project into the unpublished file, on the staging
    tables the gate checked (and the empty staging table of an absent optional one)."""
    try:
        outcome = dbt.invoke(["build", "--exclude", *staging_models(release.files), *REST_OF_THE_BUILD])
    except DbtFailed as error:
        raise StageFailed("dbt build", str(error)) from error
    if not outcome.success:
        raise StageFailed("dbt build", dbt_failure(outcome, dbt.log_dir))


def dbt_failure(outcome: DbtOutcome, log_dir: Path) -> str:
    """What failed in a dbt command, one line per failed node (dbt's own message)."""
    failures = outcome.failures()
    lines = [f"{node.resource_type} {node.name}: {' '.join(node.message.split())[:500]}" for node in failures]
    if outcome.exception is not None:
        lines.append(outcome.exception[:500])
    return (
        f"dbt failed on {len(failures)} node(s):\n  "
        + "\n  ".join(lines)
        + f"\ndbt's output: {log_dir / 'console.log'}; its log: {log_dir / 'logs'}"
    )


# What the build prints after it publishes, read over one read-only connection to the
# published file: the headline metrics beside the paper's, the anchored scores beside the
# judge's, and (a new publication only) the task-set note. Each query's rows, or why they
# could not be read.
SUMMARY_QUERIES = {
    "headline": f"select metric, value, ci_low, ci_high, paper_value from {HEADLINE_METRICS} order by display_order",
    "anchored": "select metric, anchored_value, anchored_ci_low, anchored_ci_high, value, ci_low, ci_high"
    " from marts.anchored_headline_metrics"
    " where metric in ('best_model_score', 'median_model_score', 'clinician_reference_score')"
    " order by display_order",
    "task set": "select previous_release_id, n_tasks, previous_n_tasks, n_tasks_added, n_tasks_removed"
    " from marts.release_comparison where not is_comparable",
}

Rows = list[tuple[Any, ...]]


def read_summary(database: Path, names: Sequence[str]) -> dict[str, Rows | duckdb.Error]:
    """The rows of SUMMARY_QUERIES' `names`, over one read-only connection to `database`; a
    query that fails (or every one, when the file cannot be opened: held for writing) gives
    its error instead."""
    try:
        with duckdb.connect(str(database), read_only=True) as connection:
            results: dict[str, Rows | duckdb.Error] = {}
            for name in names:
                try:
                    results[name] = connection.sql(SUMMARY_QUERIES[name]).fetchall()
                except duckdb.Error as error:
                    results[name] = error
            return results
    except duckdb.Error as error:
        return dict.fromkeys(names, error)


def headline_lines(rows: Rows, level: str) -> list[str]:
    """The headline metrics beside the paper's values, a line each under a header."""
    lines = [f"{'metric':<34} {'value':>7} {level + ' CI':>17} {'paper':>7} {'diff':>7}"]
    for metric, value, low, high, paper in rows:
        interval = f"[{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
        paper_text = f"{paper:.3f}" if paper is not None else ""
        # rounded first, so that a difference within half a thousandth prints +0.000, never -0.000
        diff = f"{round(float(value - paper), 3) + 0.0:+.3f}" if paper is not None and value is not None else ""
        value_text = f"{value:.3f}" if value is not None else "null"
        lines.append(f"{metric:<34} {value_text:>7} {interval:>17} {paper_text:>7} {diff:>7}")
    return lines


def anchored_lines(rows: Rows, level: str) -> list[str]:
    """The best, median and clinician-reference scores anchored to the clinicians, beside the judge's."""

    def shown(value: float | None, low: float | None, high: float | None) -> str:
        interval = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
        return (f"{value:.3f}" if value is not None else "null") + interval

    lines = [f"anchored to the clinicians ({level} CI), beside the judge's:"]
    for metric, value, low, high, judge, judge_low, judge_high in rows:
        judged = shown(judge, judge_low, judge_high)
        lines.append(f"{'anchored ' + metric:<34} {shown(value, low, high):>25}   judge {judged}")
    return lines


def task_set_line(rows: Rows) -> str | None:
    """One line when this release's task set is not the previous release's in the warehouse
    (marts.release_comparison), else None."""
    if not rows:
        return None
    ((previous, n_tasks, previous_n_tasks, added, removed),) = rows
    return (
        f"note: this release's {n_tasks} tasks are not the previous release's {previous_n_tasks} ({previous}: "
        f"{added} added, {removed} removed); changes against it are marked not comparable"
    )


def print_summary(database: Path, level: str, *, published: bool) -> None:
    """The headline metrics, then the anchored scores (each skipped, saying why, when it cannot
    be read: a file held for writing), then, for a new publication (`published`), the task-set
    note; `level` is the intervals' level ("95%")."""
    summary = read_summary(database, ["headline", "anchored", *(["task set"] if published else [])])
    headline, anchored = summary["headline"], summary["anchored"]
    if isinstance(headline, duckdb.Error):
        say(f"(headline metrics not shown: {headline})")
    else:
        lines = headline_lines(headline, level)
        if isinstance(anchored, duckdb.Error):
            lines.append(f"(anchored scores not shown: {anchored})")
        else:
            lines += anchored_lines(anchored, level)
        for line in lines:
            say(line)
    task_set = summary.get("task set")
    note = task_set_line(task_set) if isinstance(task_set, list) else None
    if note is not None:
        say(note)


@dataclass(frozen=True)
class Build:
    """One build as its stages share it: the warehouse's layout, the release, the work folder
    and the unpublished file in it, the publication history so far, and the build's stamp."""

    layout: WarehouseLayout
    release: Release
    scratch: Path
    history: list[Record]
    stamp: str

    @property
    def building(self) -> Path:
        return self.scratch / BUILDING_FILE

    @property
    def database(self) -> Path:
        """The file the build is published as."""
        return self.layout.builds_dir / f"{self.release.release_id}-{self.stamp}.duckdb"


def prepare(layout: WarehouseLayout, release_dir: Path, stack: ExitStack) -> Build:
    """Take the build lock (held until `stack` closes), end a killed build's dbt process,
    clear what earlier builds left and make the work folder; read the release."""
    layout.builds_dir.mkdir(parents=True, exist_ok=True)
    stack.enter_context(build_lock(layout.lock, layout.published))
    scratch = layout.builds_dir / WORK_FOLDER
    end_leftover(scratch / "dbt")  # a killed build's dbt process, if it still runs
    history = published_history(layout)
    remove_stale_files(layout, history)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    scratch.mkdir()
    release = load_release(release_dir)
    stack.callback(discard_unpublished, scratch / BUILDING_FILE)  # a failed build keeps its logs, not its database
    return Build(layout, release, scratch, history, stamp)


def start_dbt(build: Build, settings: Settings, stack: ExitStack) -> DbtProcess:
    """dbt's process for the build (stopped when `stack` closes), building into the
    unpublished file and reading the release through the warehouse's link folder."""
    dbt = DbtProcess.start(
        project=settings.project_dir,
        database=build.building,
        release_links=link_folder(build.layout.published),
        log_dir=build.scratch / "dbt",
        target_dir=build.layout.builds_dir / DBT_TARGET,
        threads=settings.dbt_threads or dbt_threads(build.release),
        memory_limit=settings.memory_limit,
    )
    stack.callback(dbt.stop)
    return dbt


def gate_release(build: Build, settings: Settings) -> GateReport:
    """The file checks, then the staging layer built into the unpublished file and the value
    checks on what was built there; StageFailed listing the failed checks."""
    from distressbench.gate.run import run_gate

    report_path = build.scratch / "gate-report.json"
    links = link_folder(build.layout.published)
    staging = SqlStaging(functools.partial(staging_sql, settings), links, build.building, settings.memory_limit)
    report = run_gate(build.release, report_path, echo=False, memory_limit=settings.memory_limit, staging=staging)
    if not report.passed:
        failures = [c.message for c in report.checks if not c.passed]
        raise StageFailed(
            "gate",
            f"the release breaks the contract in {len(failures)} check(s):\n  "
            + "\n  ".join(failures)
            + f"\nfull report: {report_path}",
        )
    say(f"[gate] {len(report.checks)} checks passed")
    return report


def publish_build(build: Build, history: list[Record]) -> None:
    """The unpublished file renamed to its published name, the symlink switched to it, and
    the publication log rewritten."""
    os.replace(build.building, build.database)
    publish(build.layout, build.database, build.scratch)
    write_log(build.layout, history)


def build_release(
    release_dir: Path, warehouse: Path, settings: Settings | None = None, *, force: bool = False
) -> tuple[Path, bool]:
    """Run every stage (with the default Settings unless given); returns the published
    database file and whether this build published it (False: identical content was
    already published). Raises StageFailed."""
    settings = settings or Settings()
    layout = WarehouseLayout(warehouse.absolute())
    with ExitStack() as stack:
        with stage("prepare"):
            build = prepare(layout, release_dir.absolute(), stack)
            dbt = start_dbt(build, settings, stack)
        with stage("gate"):
            report = gate_release(build, settings)
        with stage("publish check"):
            published = already_published(layout, build.history, build.release, force)
        if published is not None:
            say(f"release {build.release.release_id} is already published with identical content: nothing to do")
            dbt.stop()  # before its work folder goes
            remove_stale_files(layout, build.history)
            return published, False
        with stage("history"):
            carry_forward(layout.current_build(), build.building, history_tables(settings))
        with stage("dbt build"):
            run_dbt(dbt, build.release)
        with stage("verify"):
            verify_release_unchanged(build.release)
        history = [*build.history, publication_record(build.release, build.database, report.to_json())]
        with stage("audit"):
            record_publication(build.building, history)
            audit(build.building, build.release, build.release.release_id)
        with stage("publish"):
            publish_build(build, history)
        remove_stale_files(layout, history)
    return build.database, True


def build(release_dir: Path | None, warehouse: Path, settings: Settings, *, force: bool = False) -> None:
    """The `distressbench build` command. UsageError for a warehouse or release folder that
    cannot work; StageFailed for a failed stage, with a note on what the published warehouse
    is now."""
    refusal = warehouse_refusal(warehouse)
    if refusal is not None:
        raise UsageError(refusal)
    if release_dir is None:
        from distressbench.synth.generate import ensure_default_release

        release_dir = ensure_default_release()
    if not release_dir.is_dir():
        raise UsageError(f"no such release folder: {release_dir}")
    unwritable = unwritable_folder(warehouse)
    if unwritable is not None:
        raise UsageError(f"cannot write in {unwritable}, where the publish must write; nothing was built")
    before = published_state(warehouse)
    try:
        database, published = build_release(release_dir, warehouse, settings, force=force)
    except StageFailed as error:
        after = published_state(warehouse)  # said as it is now, whatever stage failed
        if after == before:
            error.add_note(f"the published warehouse {warehouse} is unchanged")
        elif after[1] is None:
            error.add_note(f"the published warehouse {warehouse} no longer reaches a database file")
        else:
            error.add_note(
                f"the published warehouse {warehouse} changed: it now points at {after[1].name} "
                "(the new release is published; what failed came after the switch)"
            )
        raise
    if published:
        say(f"published {warehouse} -> {database.name}")
    # the task-set note: a new build's comparison only
    print_summary(database, interval_level(settings.var("bootstrap_alpha")), published=published)
