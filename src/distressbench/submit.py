"""`distressbench submit`: a new release made of a published release plus a submission's models.

A submission folder holds `models.parquet` (the new models, kind 'model'),
`responses.parquet` and `judge_labels.parquet` with the contract's schemas, and optionally
`calibration_labels.parquet`. It is checked against the base release before anything is
written: the schemas, what a submission may hold, and the contract's value rules
(gate/rules.yml) of the tables it extends, each on the release it would make (DuckDB views
of the base's rows plus the submission's), under the gate's check names; each problem is
reported the way the gate reports one (check, table, column, count, example keys). The
derived release holds the base's rows plus the submission's, a new manifest (hashes, row
counts, `derived_from`) and is written into a temporary folder beside the output folder,
renamed into place at the end, so a refused or failed submission leaves nothing behind. A
submission killed before it could clean up leaves its temporary folder; the next submission
into the same output folder on the same machine removes it (distressbench.release.folders).

The tables the submission extends are streamed batch by batch (base rows, then submission
rows) through one Parquet writer, so memory stays at a few batches whatever the size; the
tables it does not touch are copied byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from distressbench import settings
from distressbench.errors import DistressbenchError
from distressbench.gate.failure_messages import failure_message, key_label, show_value
from distressbench.gate.files import check_manifest, check_new_folder, safe_release_id
from distressbench.gate.results import CheckResult, Recorder, listing, problem_lines, quote
from distressbench.gate.rules import RULES
from distressbench.gate.schemas import check_schemas
from distressbench.release import contract, folders
from distressbench.release.manifest import write_manifest
from distressbench.release.release import Release, load_release

SUBMISSION_TABLES = ("models", "responses", "judge_labels")
OPTIONAL_SUBMISSION_TABLES = ("calibration_labels",)
EXTENDED_TABLES = SUBMISSION_TABLES + OPTIONAL_SUBMISSION_TABLES
MAX_RELEASE_ID = contract.RELEASE_ID_MAX_LENGTH
BATCH_ROWS = 1 << 17
EXAMPLES = 5
COMPRESSION = "zstd"
SUBMISSION_MANIFEST = "submission.json"  # optional: {"reply_sources": {response_id: {...}}}


class SubmissionRefused(DistressbenchError):
    """The submission (or its base) breaks a check; nothing was written."""

    def __init__(self, failures: list[CheckResult]) -> None:
        super().__init__(
            f"submission refused: {len(failures)} check(s) failed:\n  " + "\n  ".join(c.line() for c in failures)
        )
        self.failures = failures


@dataclass(frozen=True)
class Submitted:
    out_dir: Path
    release_id: str
    rows: dict[str, int]
    seconds: float


@dataclass(frozen=True)
class ValueCheck:
    """Rows of `sql` (a query over the submission's views) are the offending keys."""

    check: str
    table: str
    column: str
    sql: str
    what: str  # '<count> <what>', e.g. '3 replies of a model that is not in the submission'


# What a submission may hold, beyond the contract (whose rules, gate/rules.yml, are checked on
# the release the submission would make): new models of kind 'model' and the replies
# and labels of those models only (a display_name or provider may be null or blank, as in the
# contract). Views: sub_models, sub_responses, sub_labels, sub_calibration.
_SUBMISSION_CHECKS = (
    ValueCheck(
        "model_kind",
        "models",
        "kind",
        "select model_id, kind from sub_models where kind is distinct from 'model'",
        "submitted models whose kind is not 'model'",
    ),
    ValueCheck(
        "response_model",
        "responses",
        "model_id",
        "select response_id, model_id from sub_responses"
        " where model_id not in (select model_id from sub_models where model_id is not null)",
        "replies of a model that is not in the submission's models.parquet",
    ),
)
_LABEL_SCOPE_SQL = (
    "select response_id, criterion_id from {view}"
    " where response_id not in (select response_id from sub_responses where response_id is not null)"
)
_LABEL_SCOPE_WHAT = "labels of a reply that is not in the submission's responses.parquet"
_JUDGE_LABEL_SCOPE = ValueCheck(
    "judge_labels_response",
    "judge_labels",
    "response_id",
    _LABEL_SCOPE_SQL.format(view="sub_labels"),
    _LABEL_SCOPE_WHAT,
)
_CALIBRATION_SCOPE = ValueCheck(
    "calibration_labels_response",
    "calibration_labels",
    "response_id",
    _LABEL_SCOPE_SQL.format(view="sub_calibration"),
    _LABEL_SCOPE_WHAT,
)


def _relay(source: Recorder, rec: Recorder, prefix: str, whose: str) -> None:
    """Add the gate checks run on the base (or submission) folder, named for whose folder it is."""
    for result in source.checks:
        rec.add(replace(result, check=f"{prefix}_{result.check}", message=f"{whose}: {result.message}"))
    for skipped in source.skipped:
        rec.skip(f"{prefix}_{skipped}", whose)


def _check_submission_files(submission_dir: Path, rec: Recorder) -> bool:
    """Every required submission table is present, and nothing the submission cannot extend."""
    allowed = {contract.file_name(t) for t in EXTENDED_TABLES}
    names = [contract.file_name(t) for t in SUBMISSION_TABLES]
    missing = [name for name in names if not (submission_dir / name).is_file()]
    extra = sorted(p.name for p in submission_dir.iterdir() if p.name.endswith(".parquet") and p.name not in allowed)
    if missing:
        examples = [quote(name) for name in missing]
        rec.stage("files").failed(
            "submission_files_present",
            table=", ".join(contract.table_name(n) for n in missing),
            n_failed=len(missing),
            examples=examples,
            message=f"the submission lacks {listing(examples, len(missing))}; it needs "
            + ", ".join(contract.file_name(t) for t in SUBMISSION_TABLES),
        )
    else:
        rec.stage("files").passed("submission_files_present")
    if extra:
        examples = [quote(name) for name in extra]
        rec.stage("files").failed(
            "submission_files_known",
            n_failed=len(extra),
            examples=examples,
            message=f"the submission holds {listing(examples, len(extra))}; a submission adds models, so it holds only "
            + ", ".join(contract.file_name(t) for t in EXTENDED_TABLES),
        )
    else:
        rec.stage("files").passed("submission_files_known")
    return not missing and not extra


def _register(connection: duckdb.DuckDBPyConnection, name: str, path: Path) -> None:
    """A view over one Parquet file, read through Arrow (no glob or quoting of the path)."""
    connection.register(name, ds.dataset(str(path), format="parquet"))


def _key(row: tuple[object, ...]) -> str:
    """An example key as the gate shows one: a quoted id, or a tuple of them."""
    shown = [show_value(value) for value in row]
    return shown[0] if len(shown) == 1 else "(" + ", ".join(shown) + ")"


def _offenders(connection: duckdb.DuckDBPyConnection, sql: str) -> tuple[int, list[str], tuple[str, ...]]:
    """How many rows `sql` returns, the first EXAMPLES as example keys, and its column names."""
    ((count,),) = connection.execute(f"select count(*) from ({sql}) as bad").fetchall()
    if count == 0:
        return 0, [], ()
    cursor = connection.execute(f"select * from ({sql}) as bad order by all limit {EXAMPLES}")
    columns = tuple(str(d[0]) for d in cursor.description or ())
    return int(count), [_key(row) for row in cursor.fetchall()], columns


def _run_value_checks(connection: duckdb.DuckDBPyConnection, checks: tuple[ValueCheck, ...], rec: Recorder) -> None:
    for check in checks:
        count, examples, _ = _offenders(connection, check.sql)
        if count == 0:
            rec.stage("values").passed(check.check, check.table, check.column)
            continue
        message = f"{count} {check.what}: {listing(examples, count)}"
        rec.stage("values").failed(
            check.check, table=check.table, column=check.column, n_failed=count, examples=examples, message=message
        )


def _run_contract_rules(connection: duckdb.DuckDBPyConnection, rec: Recorder) -> None:
    """The contract's value rules on the tables a submission extends, each on the release the
    submission would make (views named as its tables), reported under the gate's names."""
    for rule in RULES:
        if rule.table not in EXTENDED_TABLES or rule.sql is None:
            continue
        count, examples, columns = _offenders(connection, rule.sql)
        if count == 0:
            rec.stage("values").passed(rule.check, rule.table, rule.column)
            continue
        label = key_label(columns, (), False)
        message = "the release it would make has " + failure_message(
            count, rule.unit, rule.units, rule.problem, label, examples
        )
        rec.stage("values").failed(
            rule.check, table=rule.table, column=rule.column, n_failed=count, examples=examples, message=message
        )


def check_submission(
    base_release: Release, submission: Release, rec: Recorder, memory_limit: str = settings.DEFAULT_MEMORY_LIMIT
) -> str | None:
    """Every check, as far as it can go; returns the base release id (None if unreadable)."""
    base = Recorder(echo=False)
    base_id = check_manifest(base_release, base)
    base_valid = check_schemas(base_release, base)
    _relay(base, rec, "base", f"the base release {base_release.folder}")
    files_ok = _check_submission_files(submission.folder, rec)
    submitted = Recorder(echo=False)
    sub_valid = check_schemas(submission, submitted)
    _relay(submitted, rec, "submission", f"the submission {submission.folder}")
    broken = any(not c.passed for c in base.checks + submitted.checks)
    if not files_ok or broken or any(t not in base_valid for t in contract.REQUIRED_TABLES):
        rec.skip("value checks", "need a valid base release and submission files with the contract's schemas")
        return base_id
    with duckdb.connect(config={"memory_limit": memory_limit}) as connection:
        views = {"models": "sub_models", "responses": "sub_responses", "judge_labels": "sub_labels"}
        views |= {"calibration_labels": "sub_calibration"} if "calibration_labels" in sub_valid else {}
        for table, view in views.items():
            _register(connection, view, sub_valid[table])
        for table in ("tasks", "criteria", *EXTENDED_TABLES):
            _register(connection, f"base_{table}", base_valid[table])
            added = f" union all by name select * from {views[table]}" if table in views else ""
            connection.execute(f"create view {table} as select * from base_{table}{added}")
        scope = (_JUDGE_LABEL_SCOPE, *([_CALIBRATION_SCOPE] if "calibration_labels" in views else []))
        _run_value_checks(connection, _SUBMISSION_CHECKS + scope, rec)
        _run_contract_rules(connection, rec)
    _check_reply_sources(submission.folder, sub_valid["responses"], rec)
    return base_id


def reply_sources(submission_dir: Path) -> dict[str, dict[str, object]]:
    """The submission's `submission.json` `reply_sources` (where each reply came from, e.g. an
    Inspect log and sample); empty without the file. ValueError when it is not such an object."""
    path = submission_dir / SUBMISSION_MANIFEST
    if not path.is_file():
        return {}
    document = json.loads(path.read_text(encoding="utf-8"))
    sources = document.get("reply_sources") if isinstance(document, dict) else None
    if not isinstance(sources, dict) or not all(isinstance(v, dict) for v in sources.values()):
        raise ValueError(f"{path}: reply_sources must be an object of response_id -> object")
    return sources


def _base_sources(manifest: dict[str, object]) -> dict[str, object]:
    """The base release's reply_sources, kept in the derived release."""
    sources = manifest.get("reply_sources")
    return sources if isinstance(sources, dict) else {}


def _check_reply_sources(submission_dir: Path, responses: Path, rec: Recorder) -> None:
    """submission.json names only replies of the submission."""
    try:
        sources = reply_sources(submission_dir)
    except ValueError as error:
        rec.stage("files").failed(
            "reply_sources",
            table=SUBMISSION_MANIFEST,
            column="reply_sources",
            examples=[quote(SUBMISSION_MANIFEST)],
            message=str(error),
        )
        return
    known = set(pq.read_table(responses, columns=["response_id"]).column(0).to_pylist())
    unknown = sorted(set(sources) - known)
    if unknown:
        examples = [quote(k) for k in unknown[:EXAMPLES]]
        rec.stage("files").failed(
            "reply_sources",
            table=SUBMISSION_MANIFEST,
            column="reply_sources",
            n_failed=len(unknown),
            examples=examples,
            message=f"{len(unknown)} reply_sources name replies that are not in the submission's responses.parquet: "
            + listing(examples, len(unknown)),
        )
    else:
        rec.stage("files").passed("reply_sources", SUBMISSION_MANIFEST, "reply_sources")


def derived_release_id(base_id: str, submission: Release | Path) -> str:
    """'<base id>-plus-<8 hex of the submission's content>', the base id shortened to fit 100 characters."""
    if not isinstance(submission, Release):
        submission = load_release(submission)
    digest = hashlib.sha256()
    for table in EXTENDED_TABLES:
        file = submission.files.get(table)
        if file is not None and file.sha256 is not None:
            digest.update(table.encode() + b"\0" + bytes.fromhex(file.sha256))
    suffix = f"-plus-{digest.hexdigest()[:8]}"
    return base_id[: MAX_RELEASE_ID - len(suffix)] + suffix


def _concatenate(sources: list[Path], table: str, out: Path) -> int:
    """Stream the rows of each source file, in order, into one Parquet file of the contract's schema.

    The id columns travel dictionary-encoded (ids repeat: about twice as fast as decoding
    every string); the file holds plain Parquet strings and no Arrow schema, so it reads back
    with exactly the contract's types."""
    schema = contract.SCHEMAS[table]
    ids = [f.name for f in schema if f.type.equals(pa.string()) and f.name.endswith("_id")]
    encoded = pa.schema([pa.field(f.name, pa.dictionary(pa.int32(), f.type)) if f.name in ids else f for f in schema])
    rows = 0
    with pq.ParquetWriter(out, encoded, compression=COMPRESSION, store_schema=False) as writer:
        for source in sources:
            reader = pq.ParquetFile(source, read_dictionary=ids)
            for batch in reader.iter_batches(batch_size=BATCH_ROWS, columns=schema.names):
                columns = [batch.column(name).cast(encoded.field(name).type) for name in encoded.names]
                writer.write_batch(pa.RecordBatch.from_arrays(columns, schema=encoded))
                rows += batch.num_rows
    return rows


def write_derived(base: Release, submission_dir: Path, out_dir: Path, release_id: str) -> dict[str, int]:
    """Write the derived release (base rows, then submission rows) and its manifest; returns rows per table."""
    base_manifest = base.manifest or {}
    rows: dict[str, int] = {}
    with folders.written_beside(out_dir) as staging:
        for table, base_path in base.paths.items():
            out = staging / contract.file_name(table)
            extra = submission_dir / contract.file_name(table)
            if table in EXTENDED_TABLES:
                rows[table] = _concatenate([base_path, *([extra] if extra.is_file() else [])], table, out)
            else:
                shutil.copyfile(base_path, out)
                rows[table] = pq.ParquetFile(out).metadata.num_rows
        write_manifest(
            staging,
            release_id,
            synthetic=bool(base_manifest.get("synthetic")),
            created_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            derived_from={"release": base.release_id, "manifest_sha256": str(base.manifest_sha256)},
            reply_sources={**_base_sources(dict(base_manifest)), **reply_sources(submission_dir)},
            # the base's named primary judge stays the derived release's: it decides who is ranked
            primary_judge=base_manifest.get("primary_judge"),
        )
    return rows


def submit(
    base_dir: Path,
    submission_dir: Path,
    out_dir: Path,
    *,
    release_id: str | None = None,
    echo: bool = True,
    memory_limit: str = settings.DEFAULT_MEMORY_LIMIT,
) -> Submitted:
    """Check the submission against the base release, then write the derived release to out_dir.
    Raises SubmissionRefused (nothing written) when a check fails."""
    started = time.perf_counter()
    rec = Recorder(echo=False)
    for folder, whose in ((base_dir, "base release"), (submission_dir, "submission")):
        if not folder.is_dir():
            rec.stage("files").failed(
                f"{whose.split()[0]}_folder",
                examples=[quote(str(folder))],
                message=f"the {whose} folder {folder} does not exist",
            )
    if rec.checks:
        raise SubmissionRefused(rec.checks)
    check_new_folder(out_dir, "the derived release is written to a new folder", rec.stage("files"))
    base, submission = load_release(base_dir), load_release(submission_dir)
    base_id = check_submission(base, submission, rec, memory_limit)
    chosen = release_id
    if chosen is None and base_id is not None:
        chosen = derived_release_id(base_id, submission)
    if chosen is not None and not (safe_release_id(chosen) and len(chosen) <= MAX_RELEASE_ID and chosen != base_id):
        rec.stage("files").failed(
            "release_id",
            column="release",
            examples=[quote(chosen)],
            message=f"--release {quote(chosen)} is not a new release id: it must match {contract.RELEASE_ID_PATTERN}, "
            f"be at most {MAX_RELEASE_ID} characters, not be '.' or '..' nor the base release's id",
        )
    failures = [c for c in rec.checks if not c.passed]
    if echo:
        for line in problem_lines(failures):
            print(line, file=sys.stderr, flush=True)
    if failures or chosen is None:
        raise SubmissionRefused(failures)
    rows = write_derived(base, submission_dir, out_dir, chosen)
    note = judge_note(base, submission, memory_limit)
    if echo and note is not None:
        print(note, flush=True)
    return Submitted(out_dir, chosen, rows, time.perf_counter() - started)


def judge_note(base: Release, submission: Release, memory_limit: str = settings.DEFAULT_MEMORY_LIMIT) -> str | None:
    """One line when the submission's judges are not the base release's ranking judges (so
    the build will show its models unranked), else None. The base's ranking judges follow the
    rule of int_models_judged, which decides in the build: the primary judge (the manifest's
    `primary_judge`, else the judge with the most labels) and every judge that labelled
    replies of at least half of the models of kind 'model' the primary judge labelled."""
    named = (base.manifest or {}).get("primary_judge")
    with duckdb.connect(config={"memory_limit": memory_limit}) as connection:
        for name, table in (("labels", "judge_labels"), ("responses", "responses"), ("models", "models")):
            _register(connection, name, base.paths[table])
        _register(connection, "sub_labels", submission.paths["judge_labels"])
        ((primary,),) = connection.execute(
            "select coalesce(?, (select judge_id from labels group by judge_id order by count(*) desc, judge_id"
            " limit 1))",
            [named],
        ).fetchall()
        judged = connection.execute(
            """
            with model_judges as (
                select distinct responses.model_id, labels.judge_id
                from labels
                inner join responses on labels.response_id = responses.response_id
                inner join models on responses.model_id = models.model_id
                where models.kind = 'model'
            ),
            primary_models as (
                select model_id from model_judges where judge_id = $primary
            )
            select model_judges.judge_id
            from model_judges
            inner join primary_models on model_judges.model_id = primary_models.model_id
            group by model_judges.judge_id
            having model_judges.judge_id = $primary or 2 * count(*) >= (select count(*) from primary_models)
            order by model_judges.judge_id
            """,
            {"primary": primary},
        ).fetchall()
        submitted = [j for (j,) in connection.execute("select distinct judge_id from sub_labels order by 1").fetchall()]
    ranking = [j for (j,) in judged]
    if primary in submitted and set(submitted) <= set(ranking):
        return None
    return (
        f"note: the submission is judged by {', '.join(map(quote, submitted))}, not by the base release's "
        f"ranking judge(s) {', '.join(map(quote, ranking))}: its models will be shown unranked, with their "
        "score and judge (docs/inspect.md says how to make a submission comparable)"
    )
