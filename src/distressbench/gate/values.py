"""Gate stage 3: run the contract's value rules (distressbench.gate.rules) on what DuckDB
reads of the release.

DuckDB reads the staging tables built from the Parquet files (no path, id or text ever
enters SQL). DuckDB hands Great Expectations small pandas frames, and the rules on frames
are GX expectations on them. The probes are counts of offending rows, all the probes of one
source counted in one aggregate query (one pass over it), judged as counts (a probe passes
when it counts none), their example keys fetched afterwards. Every
rule reads only tables that passed the schema stage; the others are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from distressbench.gate import views
from distressbench.gate.failure_messages import examples_of, failure_message, key_label, show_value
from distressbench.gate.gx import GxRunner, Outcome, gx
from distressbench.gate.results import N_EXAMPLES, Recorder, StageRecorder, listing
from distressbench.gate.rules import FRAMES, PROBES, SOURCES, Frame, Probe, Rule
from distressbench.gate.views import ROW, Derived
from distressbench.release import contract

STAGE = "values"


def expectation(rule: Rule) -> Any:
    """The GX expectation a rule names, with its arguments (tuples given to GX as lists)."""
    args = {name: list(value) if isinstance(value, tuple) else value for name, value in rule.args}
    return getattr(gx.expectations, rule.expectation)(**args)


@dataclass
class _Session:
    con: duckdb.DuckDBPyConnection
    valid: set[str]
    rec: StageRecorder
    gx: GxRunner
    broken: dict[str, str] = field(default_factory=dict)  # derived view -> DuckDB error
    unreadable: frozenset[str] = frozenset()  # tables whose data could not be read (their `readable` failed)


def check_values(
    con: duckdb.DuckDBPyConnection,
    present: set[str],
    valid_tables: dict[str, Path],
    rec: Recorder,
    gx_runner: GxRunner,
    unreadable: dict[str, str] | None = None,
) -> None:
    """Stage 3 over the tables that passed stage 2 and dbt built into `con`;
    `present` names the tables whose files are in the release. A table in `unreadable` (its
    file's data could not be read: table -> error) fails every check that reads it."""
    runnable_frames = [f for f in FRAMES if set(f.needs) <= set(valid_tables)]
    runnable_probes = [p for p in PROBES if set(p.needs) <= set(valid_tables)]
    _report_skips(FRAMES, PROBES, valid_tables, present, rec)
    if not runnable_frames and not runnable_probes:
        return
    unreadable = unreadable or {}
    for table in valid_tables:
        if table not in unreadable:
            con.execute(f"create or replace temp view {table} as {views.RAW_VIEWS[table]}")
    session = _Session(
        con, set(valid_tables), rec.stage(STAGE), gx_runner, broken=dict(unreadable), unreadable=frozenset(unreadable)
    )
    _derive(session)
    for frame in runnable_frames:
        _run_frame(session, frame)
    _run_probes(session, runnable_probes)


def _report_skips(
    all_frames: Iterable[Frame], all_probes: Iterable[Probe], valid: dict[str, Path], present: set[str], rec: Recorder
) -> None:
    """One SKIP line per set of unusable tables; an absent optional annex is no reason to say anything."""
    by_missing: dict[tuple[str, ...], list[str]] = {}
    for needs, labels in [(f.needs, [f"{r.check} {r.table}.{r.column}" for r in f.rules]) for f in all_frames] + [
        (p.needs, [f"{p.check} {p.table}.{p.column}"]) for p in all_probes
    ]:
        missing = tuple(t for t in needs if t not in valid)
        if any(t in present or t in contract.REQUIRED_TABLES for t in missing):
            by_missing.setdefault(missing, []).extend(labels)
    for missing, labels in by_missing.items():
        tables = ", ".join(missing)
        what = f"{len(labels)} value check{'s' if len(labels) != 1 else ''} reading {tables}"
        rec.skip(what, f"{tables} did not pass the file, schema and readability checks", labels)


def _derive(session: _Session) -> None:
    _create(session, SOURCES)
    _create(session, views.LABEL_VIEWS)
    _derive_labels(session)


def _create(session: _Session, derived: Iterable[Derived]) -> None:
    for view in derived:
        if not set(view.needs) <= session.valid:
            continue
        broken = [t for t in view.needs if t in session.broken] + [d for d in session.broken if d in view.sql]
        if broken:
            session.broken[view.name] = session.broken[broken[0]]
            continue
        kind = "temp table" if view.materialize else "temp view"
        try:
            session.con.execute(f"create {kind} {view.name} as {view.sql}")
        except duckdb.Error as error:
            session.broken[view.name] = f"{type(error).__name__}: {error}"


def _derive_labels(session: _Session) -> None:
    """label_samples: the labels with a null or a negative sample_index, counted in the raw
    file only when some group has no sample mask (else there are none). label_dups: the
    repeated full label keys, read exactly from the raw file only for the groups whose counts
    say they may hold one (see views.DUP_CANDIDATE)."""
    con = session.con
    if "judge_labels" not in session.valid or "label_groups" in session.broken:
        return
    try:
        (unmasked,) = con.execute(f"select count(*) from label_groups where {views.NO_SAMPLE_MASK}").fetchone() or (0,)
        counted = f"select {views.SAMPLE_COUNTS} from judge_labels" + ("" if unmasked else " where false")  # 0, 0
        con.execute(f"create temp table label_samples as {counted}")
    except duckdb.Error as error:
        session.broken["label_samples"] = f"{type(error).__name__}: {error}"
    try:
        (candidates,) = con.execute(f"select count(*) from label_groups where {views.DUP_CANDIDATE}").fetchone() or (0,)
        if not candidates:
            sql = f"{views.LABEL_DUP_KEYS_UNKEYED} limit 0"
        elif (
            "label_ids" in session.broken
            or not {"responses", "criteria"} <= session.valid
            or con.execute(
                f"select count(*) from label_groups where {views.DUP_CANDIDATE} "
                "and (response_key = -1 or criterion_key = -1)"
            ).fetchone()
            != (0,)
        ):
            sql = views.LABEL_DUP_KEYS_UNKEYED  # exact, over every label (ids not in the release have no key)
        else:
            sql = views.LABEL_DUP_KEYS.format(candidate=views.DUP_CANDIDATE)
        con.execute(f"create temp table label_dups as {sql}")
    except duckdb.Error as error:
        session.broken["label_dups"] = f"{type(error).__name__}: {error}"


def _fail_all(session: _Session, checks: Iterable[tuple[str, str, str]], needs: tuple[str, ...], error: str) -> None:
    """Checks DuckDB could not evaluate (a file whose footer reads but whose data does not):
    each is reported under the `readable` check of the first table it needs that failed it."""
    files = ", ".join(contract.file_name(t) for t in needs)
    cause = next((f"readable {t}.*" for t in needs if t in session.unreadable), None)
    for check, table, column in checks:
        session.rec.failed(
            check,
            table=table,
            column=column,
            message=f"could not be evaluated: reading {files} failed, is one of them corrupt? ({error})",
            caused_by=cause,
        )


def _run_frame(session: _Session, frame: Frame) -> None:
    unreadable = [session.broken[t] for t in frame.needs if t in session.broken]
    if unreadable:
        _fail_all(session, [(r.check, r.table, r.column) for r in frame.rules], frame.needs, unreadable[0])
        return
    try:
        data = session.con.execute(frame.sql).df()
    except duckdb.Error as error:
        _fail_all(
            session,
            [(r.check, r.table, r.column) for r in frame.rules],
            frame.needs,
            f"{type(error).__name__}: {error}",
        )
        return
    outcomes = session.gx.validate(data, [expectation(rule) for rule in frame.rules])
    for rule, outcome in zip(frame.rules, outcomes, strict=True):
        _record_rule(session.rec, frame, rule, outcome, data)


def _record_rule(rec: StageRecorder, frame: Frame, rule: Rule, outcome: Outcome, data: pd.DataFrame) -> None:
    if outcome.error is not None:
        rec.failed(
            rule.check,
            table=rule.table,
            column=rule.column,
            message=f"Great Expectations could not evaluate it: {outcome.error}",
        )
        return
    if outcome.success:
        rec.passed(rule.check, rule.table, rule.column)
        return
    n, examples, message = (
        _describe_count(frame, rule, data) if rule.absent is not None else _describe_rows(frame, rule, outcome, data)
    )
    rec.failed(rule.check, table=rule.table, column=rule.column, n_failed=n, examples=examples, message=message)


def _describe_rows(frame: Frame, rule: Rule, outcome: Outcome, data: pd.DataFrame) -> tuple[int, list[str], str]:
    """(offending rows, example keys, message) of a failed rule on the frame's rows."""
    rows = [data.loc[i].to_dict() for i in outcome.unexpected_index]
    examples = examples_of(rows, frame.key, rule.show, rule.with_row)
    n = int(outcome.unexpected_count or len(rows))
    label = key_label(frame.key, rule.show, rule.with_row)
    more = n > len(rows) if rule.grouped else None
    return n, examples, failure_message(n, rule.unit, rule.units, rule.problem, label, examples, more)


def _describe_count(frame: Frame, rule: Rule, data: pd.DataFrame) -> tuple[int, list[str], str]:
    """The same, for a failed rule on the frame's row count: none, or more than wanted."""
    n = len(data)
    if n == 0 or rule.excess is None:
        return 1, [], str(rule.absent)
    key = frame.key[0]
    examples = [show_value(v) for v in data[key].tolist()[:N_EXAMPLES]]
    return n, examples, f"{n} {rule.units} {rule.excess}; {key}: {listing(examples, n)}"


def _run_probes(session: _Session, runnable: list[Probe]) -> None:
    """Count each probe's offending rows in DuckDB, the probes of one source in one query;
    a probe passes when it counts none, else its example keys are fetched."""
    by_source: dict[str, list[Probe]] = {}
    for probe in runnable:
        unreadable = [session.broken[t] for t in probe.needs if t in session.broken]
        if unreadable:
            _fail_all(session, [(probe.check, probe.table, probe.column)], probe.needs, unreadable[0])
            continue
        by_source.setdefault(probe.source, []).append(probe)
    for source, group in by_source.items():
        if source in session.broken:
            _fail_all(session, [(p.check, p.table, p.column) for p in group], group[0].needs, session.broken[source])
            continue
        counts_sql = (
            "select "
            + ", ".join(f"coalesce({p.rows} filter (where {p.bad}), 0) as c{i}" for i, p in enumerate(group))
            + f" from {source}"
        )
        try:
            counts = session.con.execute(counts_sql).fetchone() or tuple(0 for _ in group)
        except duckdb.Error as error:
            _fail_all(
                session,
                [(p.check, p.table, p.column) for p in group],
                group[0].needs,
                f"{type(error).__name__}: {error}",
            )
            continue
        for probe, count in zip(group, (int(c) for c in counts), strict=True):
            if count:
                _record_offenders(session, probe, count)
            else:
                session.rec.passed(probe.check, probe.table, probe.column)


def _record_offenders(session: _Session, probe: Probe, count: int) -> None:
    columns = list(dict.fromkeys(probe.key + tuple(c for c, _ in probe.show) + ((ROW,) if probe.with_row else ())))
    order = ROW if probe.with_row else ", ".join(probe.key)
    sql = probe.examples_sql or (
        f"select {', '.join(columns)} from {probe.source} where {probe.bad} order by {order} limit {N_EXAMPLES}"
    )
    try:
        rows = session.con.execute(sql).df().to_dict("records")
    except duckdb.Error as error:
        rows = []
        note = f" (example keys could not be read: {type(error).__name__}: {error})"
    else:
        note = ""
    examples = examples_of(rows, probe.key, probe.show, probe.with_row)
    label = key_label(probe.key, probe.show, probe.with_row)
    session.rec.failed(
        probe.check,
        table=probe.table,
        column=probe.column,
        n_failed=count,
        examples=examples,
        message=failure_message(
            count,
            probe.unit,
            probe.units,
            probe.problem,
            label,
            examples,
            len(rows) >= N_EXAMPLES if probe.grouped else None,
        )
        + note,
    )
