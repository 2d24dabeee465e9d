"""`distressbench pack`: a folder of tables as CSV, JSON Lines or Parquet, written as a release.

The source folder holds one source per table of the contract: `<table>.csv`,
`<table>.jsonl` (or `.ndjson`), `<table>.parquet`, or a folder `<table>/` of Parquet part
files (a Spark or DuckDB output folder; files whose names start with `.` or `_` are left
out). Each table is brought to the contract's Arrow types, value by value: a string column
may come in any string encoding; an int32 column from any integer or floating type, or from
CSV text, as long as every value is a whole number in int32's range; a bool column from
bool, or from CSV text `true`/`false` (any case). CSV has no null: an empty int32 or bool
field is a null, an empty string field is a null where the contract lets the column be null
(`redteam_transcripts.model_id`) and the empty string elsewhere -- said in a note naming the
table, column, count and example keys, except where the contract lets the text be empty (a
reply's `content`). Anything else is refused as the gate
refuses it, naming the table, the column, the expected and found type, how many values and
example keys -- a value is never silently changed.

The tables are written into a temporary folder beside the output folder with a manifest
(sha256, rows, created_at), the gate is run on it, and only a release that passes is renamed
into place; a refused one leaves nothing behind.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from distressbench.errors import DistressbenchError, UsageError
from distressbench.gate.files import check_new_folder, safe_release_id
from distressbench.gate.results import CheckResult, Recorder, listing, problem_lines, quote
from distressbench.gate.schemas import check_columns
from distressbench.release import contract, folders
from distressbench.release.manifest import write_manifest
from distressbench.settings import Settings

TABLES = contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES
SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}
# the columns that name a row in an example, per table
KEYS: dict[str, tuple[str, ...]] = {
    "tasks": ("task_id",),
    "turns": ("task_id", "turn_index"),
    "criteria": ("criterion_id",),
    "models": ("model_id",),
    "responses": ("response_id",),
    "judge_labels": ("response_id", "criterion_id", "judge_id", "sample_index"),
    "calibration_labels": ("response_id", "criterion_id", "annotator_id"),
    "redteam_transcripts": ("transcript_id", "turn_index"),
}
EXAMPLES = 5
SHOWN = 40  # characters of a value or key shown in a message
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
COMPRESSION = "zstd"


class PackRefused(DistressbenchError):
    """A source table (or the release made of them) breaks a check; nothing was written."""

    def __init__(self, failures: list[CheckResult], notes: tuple[str, ...] = ()) -> None:
        super().__init__(f"refused, {len(failures)} check(s) failed; nothing was written")
        self.failures = failures
        self.notes = notes  # what pack read differently from the source, said even when it refuses


@dataclass(frozen=True)
class Source:
    table: str
    path: Path
    kind: str  # csv, jsonl, parquet (a file) or parts (a folder of Parquet part files)

    @property
    def name(self) -> str:
        return self.path.name + ("/" if self.kind == "parts" else "")


@dataclass(frozen=True)
class Packed:
    out_dir: Path
    release_id: str
    rows: dict[str, int]
    seconds: float
    synthetic: bool
    notes: tuple[str, ...]  # what pack did that the source did not say (an empty CSV field read as "")


def _parts(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.parquet") if p.is_file() and not p.name.startswith((".", "_")))


def find_sources(src_dir: Path, rec: Recorder) -> dict[str, Source]:
    """table -> its source; every required table present, none given twice, no unknown table."""
    found: dict[str, list[Source]] = {}
    unknown: list[str] = []
    for entry in sorted(src_dir.iterdir()):
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_dir() and _parts(entry):
            source = Source(entry.name, entry, "parts")
        elif entry.is_file() and entry.suffix.lower() in SUFFIXES:
            source = Source(entry.stem, entry, SUFFIXES[entry.suffix.lower()])
        else:
            continue
        if source.table in TABLES:
            found.setdefault(source.table, []).append(source)
        else:
            unknown.append(quote(source.name))
    problems = [f"{t} (required, no source)" for t in contract.REQUIRED_TABLES if t not in found]
    problems += [
        f"{t} (given {len(s)} times: {', '.join(quote(x.name) for x in s)})" for t, s in found.items() if len(s) > 1
    ]
    problems += [f"{name} (not a table of the contract)" for name in unknown]
    if problems:
        rec.stage("files").failed(
            "pack_sources",
            n_failed=len(problems),
            examples=problems[:EXAMPLES],
            message=f"{len(problems)} problem{'s' if len(problems) != 1 else ''} with the source tables in {src_dir} "
            f"(one <table>.csv, .jsonl, .parquet or <table>/ of part files each; tables: {', '.join(TABLES)}): "
            f"{listing(problems[:EXAMPLES], len(problems))}",
        )
    else:
        rec.stage("files").passed("pack_sources")
    return {table: sources[0] for table, sources in found.items() if len(sources) == 1}


def read_source(source: Source) -> pa.Table:
    """The source's rows with the types its writer gave them (CSV: every column as text)."""
    if source.kind == "parquet":
        return pq.read_table(source.path)
    if source.kind == "parts":
        return pa.concat_tables([pq.read_table(p) for p in _parts(source.path)], promote_options="permissive")
    if source.kind == "csv":
        with source.path.open(newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
        return pa_csv.read_csv(
            source.path,
            parse_options=pa_csv.ParseOptions(newlines_in_values=True),
            convert_options=pa_csv.ConvertOptions(
                column_types={name: pa.string() for name in header},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    # JSON Lines: the contract's string columns are read as strings (never inferred as dates)
    strings = [f for f in contract.SCHEMAS[source.table] if pa.types.is_string(f.type)]
    data = pa_json.read_json(source.path, parse_options=pa_json.ParseOptions(explicit_schema=pa.schema(strings)))
    # a declared column no row names comes back all null: it is missing, not null
    all_null = {f.name for f in strings if data[f.name].null_count == data.num_rows}
    return data.drop_columns(sorted(all_null - _keys_named(source.path, all_null))) if all_null else data


def _keys_named(path: Path, names: set[str]) -> set[str]:
    """Which of `names` some row of a JSON Lines file names."""
    named: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                named |= names & set(row) if isinstance(row, dict) else set()
                if named == names:
                    break
    return named


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else str(value)
    return quote(text[:SHOWN] + ("..." if len(text) > SHOWN else ""))


def _examples(table: str, data: pa.Table, column: str, rows: list[int]) -> list[str]:
    """'<value> (row <i>, <key>)' for each row, the key from the table's key columns present."""
    keys = [k for k in KEYS[table] if k in data.column_names and k != column]
    shown = []
    for row in rows:
        parts = [f"row {row}"]
        for key in keys:
            value = data[key][row].as_py()
            parts.append(f"{key} {'null' if value is None else _shown(value)}")
        shown.append(f"{_shown(data[column][row].as_py())} ({', '.join(parts)})")
    return shown


def _is_text(arrow_type: pa.DataType) -> bool:
    if pa.types.is_dictionary(arrow_type):
        return _is_text(arrow_type.value_type)
    return pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_string_view(arrow_type)


Converted = tuple[pa.ChunkedArray, pa.ChunkedArray | None]  # the column, a mask of the values that do not fit


def _as_string(column: pa.ChunkedArray, from_text: bool) -> Converted | None:
    if _is_text(column.type):
        return pc.cast(column, pa.string()), None
    return None


def _as_int32(column: pa.ChunkedArray, from_text: bool) -> Converted | None:
    """Integer and floating columns (and CSV text) whose values are whole numbers in int32's range."""
    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        wide = pc.cast(column, pa.float64())
        unfit = pc.or_kleene(pc.less(wide, INT32_MIN), pc.greater(wide, INT32_MAX))
        if pa.types.is_floating(kind):
            unfit = pc.or_kleene(unfit, pc.invert(pc.equal(pc.floor(wide), wide)))  # NaN, infinities, fractions
        unfit = pc.fill_null(unfit, False)
        kept = pc.if_else(unfit, None, wide if pa.types.is_floating(kind) else column)
        return pc.cast(kept, pa.int32()), unfit
    if from_text and _is_text(kind):
        text = pc.utf8_trim_whitespace(pc.cast(column, pa.string()))
        empty = pc.equal(text, "")
        whole = pc.match_substring_regex(text, r"^[+-]?[0-9]{1,10}$")
        wide = pc.cast(pc.if_else(whole, text, None), pa.int64())
        out_of_range = pc.fill_null(pc.or_kleene(pc.less(wide, INT32_MIN), pc.greater(wide, INT32_MAX)), False)
        unfit = pc.or_(pc.and_(pc.invert(whole), pc.invert(empty)), out_of_range)
        return pc.cast(pc.if_else(unfit, None, wide), pa.int32()), unfit
    return None


def _as_bool(column: pa.ChunkedArray, from_text: bool) -> Converted | None:
    """Bool columns, and CSV text true/false in any case."""
    if pa.types.is_boolean(column.type):
        return column, None
    if from_text and _is_text(column.type):
        text = pc.utf8_lower(pc.utf8_trim_whitespace(pc.cast(column, pa.string())))
        known = pc.is_in(text, pa.array(["true", "false", ""]))
        return pc.if_else(pc.equal(text, ""), None, pc.equal(text, "true")), pc.invert(known)
    return None


_CONVERTERS = {"string": _as_string, "int32": _as_int32, "bool": _as_bool}


def _empty_text(
    source: Source, data: pa.Table, name: str, column: pa.ChunkedArray, notes: list[str]
) -> pa.ChunkedArray:
    """A CSV string column with its empty fields read as the contract reads them: null where
    the column may be null; the empty string elsewhere, with a note unless it may be empty."""
    table = source.table
    empty = pc.equal(column, "")
    if (table, name) in contract.NULLABLE_COLUMNS:
        return pc.if_else(empty, pa.scalar(None, pa.string()), column)
    if (table, name) not in contract.MAY_BE_EMPTY_COLUMNS:
        rows = pc.indices_nonzero(empty.combine_chunks()).to_pylist()
        if rows:
            examples = _examples(table, data, name, rows[:EXAMPLES])
            notes.append(
                f"{len(rows)} empty field{'s' if len(rows) != 1 else ''} of {table}.{name} in {source.name} "
                f"{'are' if len(rows) != 1 else 'is'} read as the empty string (the contract does not let "
                f"{name} be null): {listing(examples, len(rows))}"
            )
    return column


def conform(source: Source, data: pa.Table, rec: Recorder, notes: list[str] | None = None) -> pa.Table | None:
    """The source's rows in the contract's schema, or None (each problem recorded) when a
    column is missing, extra or repeated, of a type that cannot hold the contract's, or holds
    a value that does not fit. What an empty CSV field became is appended to `notes`."""
    table, schema = source.table, contract.SCHEMAS[source.table]
    if not check_columns(table, source.name, data.column_names, rec.stage("schema")):
        return None
    from_text = source.kind == "csv"
    columns: list[pa.ChunkedArray] = []
    wrong: list[str] = []
    fits = True
    for field in schema:
        found = data[field.name]
        converted = (
            (pa.chunked_array([pa.nulls(len(found), field.type)]), None)
            if pa.types.is_null(found.type)
            else _CONVERTERS[str(field.type)](found, from_text)
        )
        if converted is None:
            wrong.append(f"{field.name} is {found.type}, expected {field.type}")
            continue
        column, unfit = converted
        if from_text and pa.types.is_string(field.type) and _is_text(found.type):
            column = _empty_text(source, data, field.name, column, [] if notes is None else notes)
        rows = (
            []
            if unfit is None
            else pc.indices_nonzero(
                pa.chunked_array([unfit]).combine_chunks() if isinstance(unfit, pa.Array) else unfit
            ).to_pylist()
        )
        if rows:
            fits = False
            examples = _examples(table, data, field.name, rows[:EXAMPLES])
            rec.stage("schema").failed(
                "value_fits_type",
                table=table,
                column=field.name,
                n_failed=len(rows),
                examples=examples,
                message=f"{len(rows)} value{'s' if len(rows) != 1 else ''} of {table}.{field.name} in {source.name} "
                f"{'do' if len(rows) != 1 else 'does'} not fit {field.type} (found {found.type}): "
                f"{listing(examples, len(rows))}",
            )
        columns.append(column)
    if wrong:
        rec.stage("schema").failed(
            "schema_types",
            table=table,
            column=", ".join(w.split(" ", 1)[0] for w in wrong),
            n_failed=len(wrong),
            examples=wrong,
            message=f"{source.name} has {len(wrong)} column{'s' if len(wrong) != 1 else ''} of the wrong type: "
            f"{'; '.join(wrong)}",
        )
        return None
    rec.stage("schema").passed("schema_types", table)
    return pa.Table.from_arrays(columns, schema=schema) if fits else None


def pack(
    src_dir: Path,
    out_dir: Path,
    *,
    release_id: str | None = None,
    synthetic: bool = False,
    settings: Settings | None = None,
) -> Packed:
    """Check every source table, write the release into a temporary folder beside out_dir,
    gate it, and rename it into place. Raises PackRefused (nothing written) when a check fails."""
    from distressbench.gate.command import gate

    started = time.perf_counter()
    rec = Recorder(echo=False)
    chosen = out_dir.name if release_id is None else release_id
    check_new_folder(out_dir, "a release is packed into a new folder", rec.stage("files"))
    if not safe_release_id(chosen):
        rec.stage("files").failed(
            "release_id",
            column="release",
            examples=[_shown(chosen)],
            message=f"release id {_shown(chosen)} (from {'--release' if release_id else 'the --out folder name'}) "
            f"must match {contract.RELEASE_ID_PATTERN}, be at most {contract.RELEASE_ID_MAX_LENGTH} "
            "characters and not be '.' or '..'",
        )
    tables: dict[str, pa.Table] = {}
    notes: list[str] = []
    for table, source in find_sources(src_dir, rec).items():
        try:
            data = read_source(source)
        except (OSError, pa.ArrowException, ValueError) as error:  # ValueError: bad UTF-8 or JSON
            shown = " ".join(str(error).split())[:300]
            rec.stage("schema").failed(
                "source_readable",
                table=table,
                examples=[quote(source.name)],
                message=f"{source.name} cannot be read as {source.kind}: {shown}",
            )
            continue
        conformed = conform(source, data, rec, notes)
        if conformed is not None:
            tables[table] = conformed
    if rec.failures:
        raise PackRefused(rec.failures, tuple(notes))
    with folders.written_beside(out_dir) as folder:
        for table, data in tables.items():
            pq.write_table(data, folder / contract.file_name(table), compression=COMPRESSION)
        created_at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        write_manifest(folder, chosen, synthetic=synthetic, created_at=created_at)
        report = gate(folder, None, settings or Settings(), echo=False)
        if not report.passed:
            raise PackRefused(report.failures, tuple(notes))
    rows = {t: d.num_rows for t, d in tables.items()}
    return Packed(out_dir, chosen, rows, time.perf_counter() - started, synthetic, tuple(notes))


def pack_command(
    src_dir: Path, out_dir: Path, release_id: str | None, synthetic: bool, settings: Settings, build_hint: str
) -> None:
    """`distressbench pack`: the release written, then `build_hint` (the command that builds
    it); or one line per failed check, then PackRefused."""
    if not src_dir.is_dir():
        raise UsageError(f"no such source folder: {src_dir}")
    try:
        done = pack(src_dir, out_dir, release_id=release_id, synthetic=synthetic, settings=settings)
    except PackRefused as error:
        _print_notes(error.notes)
        for line in problem_lines(error.failures):
            print(line, file=sys.stderr, flush=True)
        raise
    _print_notes(done.notes)
    rows = ", ".join(f"{t} {n}" for t, n in done.rows.items())
    print(f"wrote release {done.release_id} to {done.out_dir} ({rows}; {done.seconds:.1f} s); {build_hint}")
    print(synthetic_line(done.synthetic))


def _print_notes(notes: tuple[str, ...]) -> None:
    for note in notes:
        print(f"pack: note: {note}", file=sys.stderr)


def synthetic_line(synthetic: bool) -> str:
    """What pack wrote as the manifest's `synthetic`, and what it means for the report."""
    if synthetic:
        return 'manifest: "synthetic": true (--synthetic: a generated stand-in; the report says so)'
    return (
        'manifest: "synthetic": false (the published corpus; the report carries no synthetic notice). '
        "Give --synthetic when the tables are generated, e.g. exported from a synthetic release"
    )
