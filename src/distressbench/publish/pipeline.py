"""`distressbench build`: write, audit, publish. docs/building.md describes the stages.

1. prepare -- take the build lock, end a dbt process a killed build left behind, clear what
   an earlier build left behind;
2. gate -- the file checks (manifest, sha256, Arrow schemas); dbt runs the staging models
   into the unpublished file `building.duckdb` (distressbench.gate.staging), and the
   value checks (Great Expectations) run on what dbt built there;
3. publish check -- a release id already published with other content needs --force;
4. history -- the results of the releases published before are carried into the file;
5. dbt build -- `dbt build` of everything else, every data test a node (the staging models'
   tests included), in the same dbt process, on the rows the gate checked;
6. verify -- the manifest is the one read before the gate and every file still has its
   sha256: what is published is what was checked;
7. audit -- row counts reconcile with the manifest, the publication record is written and
   the file reopens read-only;
8. publish -- one atomic rename of a symlink.

The layout and the publish are distressbench.publish.layout's, the checks outside dbt
distressbench.publish.checks', the stage runner distressbench.publish.stages'.

dbt's target folder `<name>.builds/dbt-target/` is kept between builds, so dbt parses the
project partially. The release build leaves out dbt's unit tests: they test the SQL on fixed
inputs, not the release's data, so no release can change their outcome; plain `dbt build`
and CI run them.
"""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from distressbench.gate.staging import DbtStaging, link_folder, staging_models
from distressbench.publish.checks import audit, unwritable_folder, verify_release_unchanged, warehouse_refusal
from distressbench.publish.history import carry_forward
from distressbench.publish.layout import (
    BUILDING_FILE,
    DBT_TARGET,
    WORK_FOLDER,
    WarehouseLayout,
    build_lock,
    discard_unpublished,
    publish,
    published_history,
    published_state,
    record_publication,
    remove_stale_files,
    write_log,
)
from distressbench.publish.stages import NOT_IN_A_RELEASE_BUILD, StageFailed, say, stage
from distressbench.release.release import Release, load_release
from distressbench.runner.dbt_process import DbtFailed, DbtOutcome, DbtProcess, end_leftover
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


def print_headline(database: Path) -> None:
    """The headline metrics beside the paper's values (skipped if the file is held for writing)."""
    try:
        with duckdb.connect(str(database), read_only=True) as connection:
            rows = connection.sql(
                "select metric, value, ci_low, ci_high, paper_value from marts.headline_metrics order by display_order"
            ).fetchall()
    except duckdb.Error as error:
        say(f"(headline metrics not shown: {error})")
        return
    from distressbench.outputs.tables.formatting import INTERVAL_LEVEL

    say(f"{'metric':<34} {'value':>7} {INTERVAL_LEVEL + ' CI':>17} {'paper':>7} {'diff':>7}")
    for metric, value, low, high, paper in rows:
        interval = f"[{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
        paper_text = f"{paper:.3f}" if paper is not None else ""
        # rounded first, so that a difference within half a thousandth prints +0.000, never -0.000
        diff = f"{round(float(value - paper), 3) + 0.0:+.3f}" if paper is not None and value is not None else ""
        value_text = f"{value:.3f}" if value is not None else "null"
        say(f"{metric:<34} {value_text:>7} {interval:>17} {paper_text:>7} {diff:>7}")
    print_anchored_headline(database)


def print_anchored_headline(database: Path) -> None:
    """The best, median and clinician-reference scores anchored to the clinicians, beside the judge's."""
    try:
        with duckdb.connect(str(database), read_only=True) as connection:
            rows = connection.sql(
                "select metric, anchored_value, anchored_ci_low, anchored_ci_high, value, ci_low, ci_high"
                " from marts.anchored_headline_metrics"
                " where metric in ('best_model_score', 'median_model_score', 'clinician_reference_score')"
                " order by display_order"
            ).fetchall()
    except duckdb.Error as error:
        say(f"(anchored scores not shown: {error})")
        return
    from distressbench.outputs.tables.formatting import INTERVAL_LEVEL

    def shown(value: float | None, low: float | None, high: float | None) -> str:
        interval = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
        return (f"{value:.3f}" if value is not None else "null") + interval

    say(f"anchored to the clinicians ({INTERVAL_LEVEL} CI), beside the judge's:")
    for metric, value, low, high, judge, judge_low, judge_high in rows:
        say(f"{'anchored ' + metric:<34} {shown(value, low, high):>25}   judge {shown(judge, judge_low, judge_high)}")


def task_set_note(database: Path) -> str | None:
    """One line when this release's task set is not the previous release's in the warehouse
    (marts.release_comparison), else None."""
    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.sql(
            "select previous_release_id, n_tasks, previous_n_tasks, n_tasks_added, n_tasks_removed"
            " from marts.release_comparison where not is_comparable"
        ).fetchall()
    if not rows:
        return None
    ((previous, n_tasks, previous_n_tasks, added, removed),) = rows
    return (
        f"note: this release's {n_tasks} tasks are not the previous release's {previous_n_tasks} ({previous}: "
        f"{added} added, {removed} removed); changes against it are marked not comparable"
    )


def build_release(
    release_dir: Path, warehouse: Path, settings: Settings | None = None, *, force: bool = False
) -> tuple[Path, bool]:
    """Run every stage (with the default Settings unless given); returns the published
    database file and whether this build published it (False: identical content was
    already published). Raises StageFailed."""
    from distressbench.gate.run import run_gate

    settings = settings or Settings()
    layout = WarehouseLayout(warehouse.absolute())
    release_dir = release_dir.absolute()
    with ExitStack() as stack:
        with stage("prepare"):
            layout.builds_dir.mkdir(parents=True, exist_ok=True)
            stack.enter_context(build_lock(layout.lock, layout.published))
            scratch = layout.builds_dir / WORK_FOLDER
            end_leftover(scratch / "dbt")  # a killed build's dbt process, if it still runs
            history = published_history(layout)
            remove_stale_files(layout, history)
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
            scratch.mkdir()
        release = load_release(release_dir)
        digest = release.manifest_sha256 or ""
        building = scratch / BUILDING_FILE
        stack.callback(discard_unpublished, building)  # a failed build keeps its logs, not its database
        links = link_folder(layout.published)
        # dbt imports and parses the project while the gate checks the files
        dbt = DbtProcess.start(
            database=building,
            release_links=links,
            log_dir=scratch / "dbt",
            target_dir=layout.builds_dir / DBT_TARGET,
            threads=settings.dbt_threads or dbt_threads(release),
            memory_limit=settings.memory_limit,
        )
        stack.callback(dbt.stop)
        with stage("gate"):
            # the file checks, then the staging layer built into the unpublished file and the
            # value checks on what was built there
            report_path = scratch / "gate-report.json"
            report = run_gate(
                release,
                report_path,
                echo=False,
                memory_limit=settings.memory_limit,
                staging=DbtStaging(dbt, links, building),
            )
            if not report.passed:
                failures = [c.message for c in report.checks if not c.passed]
                raise StageFailed(
                    "gate",
                    f"the release breaks the contract in {len(failures)} check(s):\n  "
                    + "\n  ".join(failures)
                    + f"\nfull report: {report_path}",
                )
            say(f"[gate] {len(report.checks)} checks passed")
        with stage("publish check"):
            release_id = release.release_id
            previous = next((r for r in reversed(history) if r["release_id"] == release_id), None)
            current = layout.current_build()
            if previous is not None and not force:
                if previous["manifest_sha256"] != digest:
                    raise StageFailed(
                        "publish check",
                        f"release id {release_id!r} was published before with different content "
                        f"(manifest sha256 {previous['manifest_sha256']}, now {digest}); use --force to replace it",
                    )
                if current is not None and current.name == previous["build_file"]:
                    say(f"release {release_id} is already published with identical content: nothing to do")
                    dbt.stop()  # before its work folder goes
                    remove_stale_files(layout, history)
                    return current, False
        database = layout.builds_dir / f"{release_id}-{stamp}.duckdb"
        with stage("history"):
            # the results of the releases published before, carried into the unpublished file
            # (which the gate has created) for the history staging models dbt builds next
            carry_forward(layout.current_build(), building)
        with stage("dbt build"):
            run_dbt(dbt, release)
        with stage("verify"):
            verify_release_unchanged(release)
        record = {
            "release_id": release_id,
            "manifest_sha256": digest,
            "published_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "build_file": database.name,
            "release_dir": str(release_dir),
            "gate_report": report.to_json(),
        }
        history = [*history, record]
        with stage("audit"):
            record_publication(building, history)
            audit(building, release, release_id)
        with stage("publish"):
            os.replace(building, database)
            publish(layout, database, scratch)
            write_log(layout, history)
        remove_stale_files(layout, history)
    return database, True


def build(release_dir: Path | None, warehouse: Path, settings: Settings, *, force: bool = False) -> int:
    """The `distressbench build` command."""
    refusal = warehouse_refusal(warehouse)
    if refusal is not None:
        print(f"build: {refusal}", file=sys.stderr)
        return 2
    if release_dir is None:
        from distressbench.synth.generate import ensure_default_release

        release_dir = ensure_default_release()
    if not release_dir.is_dir():
        print(f"build: no such release folder: {release_dir}", file=sys.stderr)
        return 2
    unwritable = unwritable_folder(warehouse)
    if unwritable is not None:
        print(f"build: cannot write in {unwritable}, where the publish must write; nothing was built", file=sys.stderr)
        return 2
    before = published_state(warehouse)
    try:
        database, published = build_release(release_dir, warehouse, settings, force=force)
    except StageFailed as error:
        print(str(error), file=sys.stderr)
        after = published_state(warehouse)  # said as it is now, whatever stage failed
        if after == before:
            print(f"the published warehouse {warehouse} is unchanged", file=sys.stderr)
        elif after[1] is None:
            print(f"the published warehouse {warehouse} no longer reaches a database file", file=sys.stderr)
        else:
            print(
                f"the published warehouse {warehouse} changed: it now points at {after[1].name} "
                "(the new release is published; what failed came after the switch)",
                file=sys.stderr,
            )
        return 1
    if published:
        say(f"published {warehouse} -> {database.name}")
    print_headline(database)
    note = task_set_note(database)
    if note is not None:
        say(note)
    return 0
