"""Gate stage 2: each table's schema, before any value is read.

A column's type is read from the Parquet schema (physical and logical type), not from the
Arrow schema a writer may embed: a string column is a string however it was written (Arrow
string, large_string, string_view or dictionary-encoded), and the same bytes get the same
verdict with or without the embedded schema."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from distressbench.gate.results import Recorder, StageRecorder, quote
from distressbench.release import contract
from distressbench.release.release import Release


def check_schemas(release: Release, recorder: Recorder) -> dict[str, Path]:
    """Stage 2: table -> path for every present table (inside the folder) whose columns, as
    the release was loaded from its Parquet schema, are exactly the contract's, each of the
    contract's logical type; and, when the manifest names a primary_judge, that it has labels."""
    rec = recorder.stage("schema")
    valid: dict[str, Path] = {}
    for table, file in release.files.items():
        if file.columns is None:
            rec.failed(
                "parquet_readable",
                table=table,
                examples=[file.path.name],
                message=f"{file.path.name} is not a readable Parquet file (truncated or corrupt?): {file.footer_error}",
            )
            continue
        rec.passed("parquet_readable", table)
        if _check_schema(table, list(file.columns), rec):
            valid[table] = file.path
    if "judge_labels" in valid:
        _check_primary_judge_labelled(release, valid["judge_labels"], rec)
    return valid


def _check_primary_judge_labelled(release: Release, path: Path, rec: StageRecorder) -> None:
    """primary_judge_labelled: the judge the manifest names as primary_judge has labels in
    judge_labels (read one batch of its judge_id column at a time, until it is found)."""
    judge = (release.manifest or {}).get("primary_judge")
    if not (isinstance(judge, str) and judge.strip()):
        return
    seen: set[str] = set()
    for batch in pq.ParquetFile(path).iter_batches(columns=["judge_id"]):
        if pc.any(pc.equal(batch.column(0), judge)).as_py():
            rec.passed("primary_judge_labelled", "judge_labels", "judge_id")
            return
        if len(seen) < 5:
            seen.update(j for j in pc.unique(batch.column(0)).to_pylist() if j is not None)
    judges = sorted(seen)[:5]
    rec.failed(
        "primary_judge_labelled",
        table="judge_labels",
        column="judge_id",
        examples=[quote(judge)],
        message=f"manifest.json names primary_judge {quote(judge)}, but judge_labels has no label with that judge_id "
        f"(judges with labels: {', '.join(quote(j) for j in judges) or 'none'}); name one of them, or leave "
        "primary_judge out to take the judge with the most labels",
    )


def check_columns(table: str, file_name: str, names: list[str], rec: StageRecorder) -> bool:
    """The schema_columns check of one file of `table`: its column names are the contract's,
    none missing, extra or repeated. Recorded as passed or failed; returns whether it passed."""
    expected = contract.SCHEMAS[table].names
    missing = [n for n in expected if n not in names]
    extra = [n for n in names if n not in expected]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if not (missing or extra or doubled):
        rec.passed("schema_columns", table)
        return True
    parts = []
    if missing:
        parts.append(f"lacks column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    if extra:
        parts.append(f"has extra column{'s' if len(extra) > 1 else ''} {', '.join(extra)}")
    if doubled:
        parts.append(f"repeats column{'s' if len(doubled) > 1 else ''} {', '.join(doubled)}")
    examples = [f"{n} (missing)" for n in missing] + [f"{n} (extra)" for n in extra]
    examples += [f"{n} (repeated)" for n in doubled]
    rec.failed(
        "schema_columns",
        table=table,
        column=", ".join(missing + extra + doubled),
        n_failed=len(examples),
        examples=examples,
        message=f"{file_name} {' and '.join(parts)}; the contract's columns of {table} are {', '.join(expected)}",
    )
    return False


def _check_schema(table: str, columns: list[tuple[str, str]], rec: StageRecorder) -> bool:
    expected = contract.SCHEMAS[table]
    names = [name for name, _ in columns]
    found = dict(columns)
    file = contract.file_name(table)
    columns_ok = check_columns(table, file, names, rec)
    doubled = {n for n in names if names.count(n) > 1}
    wrong = [
        (n, found[n], str(expected.field(n).type))
        for n in expected.names
        if n in names and n not in doubled and found[n] != str(expected.field(n).type)
    ]
    if wrong:
        examples = [f"{n} is {actual}, expected {want}" for n, actual, want in wrong]
        rec.failed(
            "schema_types",
            table=table,
            column=", ".join(n for n, _, _ in wrong),
            n_failed=len(wrong),
            examples=examples,
            message=f"{file} has {len(wrong)} column{'s' if len(wrong) > 1 else ''} of the wrong type: "
            f"{'; '.join(examples)}",
        )
    elif not doubled:
        rec.passed("schema_types", table)
    return columns_ok and not wrong
