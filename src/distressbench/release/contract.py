"""The release contract (schema_version 1) as data: files, Arrow schemas and taxonomies.

The prose version lives in docs/release-contract.md. Everything that needs to know what a
release looks like -- the synthetic generator, the gate, the build's audit -- reads it
from here, and the taxonomies come from the dbt seeds so there is one list of each.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import pyarrow as pa

from distressbench.settings import SEEDS_DIR

BENCHMARK = "DistressBench"
SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
RELEASE_ID_PATTERN = r"[A-Za-z0-9._-]+"
RELEASE_ID_MAX_LENGTH = 100
MANIFEST_MAX_BYTES = 1 << 20  # a manifest lists at most eight files: a few kilobytes
MANIFEST_MAX_DEPTH = 8  # nesting of objects and arrays; the contract's manifest needs 3

SCHEMAS: dict[str, pa.Schema] = {
    "tasks": pa.schema(
        [
            ("task_id", pa.string()),
            ("subcategory", pa.string()),
            ("n_user_turns", pa.int32()),
            ("reference_response", pa.string()),
        ]
    ),
    "turns": pa.schema(
        [
            ("task_id", pa.string()),
            ("turn_index", pa.int32()),
            ("role", pa.string()),
            ("content", pa.string()),
        ]
    ),
    "criteria": pa.schema(
        [
            ("criterion_id", pa.string()),
            ("task_id", pa.string()),
            ("dimension", pa.string()),
            ("weight", pa.int32()),
            ("text", pa.string()),
        ]
    ),
    "models": pa.schema(
        [
            ("model_id", pa.string()),
            ("display_name", pa.string()),
            ("provider", pa.string()),
            ("kind", pa.string()),
        ]
    ),
    "responses": pa.schema(
        [
            ("response_id", pa.string()),
            ("task_id", pa.string()),
            ("model_id", pa.string()),
            ("content", pa.string()),
        ]
    ),
    "judge_labels": pa.schema(
        [
            ("response_id", pa.string()),
            ("criterion_id", pa.string()),
            ("judge_id", pa.string()),
            ("sample_index", pa.int32()),
            ("met", pa.bool_()),
        ]
    ),
    "calibration_labels": pa.schema(
        [
            ("response_id", pa.string()),
            ("criterion_id", pa.string()),
            ("annotator_id", pa.string()),
            ("met", pa.bool_()),
        ]
    ),
    "redteam_transcripts": pa.schema(
        [
            ("transcript_id", pa.string()),
            ("turn_index", pa.int32()),
            ("role", pa.string()),
            ("content", pa.string()),
            ("model_id", pa.string()),
        ]
    ),
}

# (table, column) of the string columns the contract lets be null, and of those that may
# hold the empty string (docs/release-contract.md); `pack` reads an empty CSV field by them.
NULLABLE_COLUMNS = frozenset({("redteam_transcripts", "model_id"), ("models", "display_name"), ("models", "provider")})
MAY_BE_EMPTY_COLUMNS = frozenset({("responses", "content"), ("redteam_transcripts", "content")})

REQUIRED_TABLES = (
    "tasks",
    "turns",
    "criteria",
    "models",
    "responses",
    "judge_labels",
    "calibration_labels",
)
OPTIONAL_TABLES = ("redteam_transcripts",)

MIN_CRITERIA_PER_TASK = 6
MAX_CRITERIA_PER_TASK = 20
MIN_WEIGHT = 1
MAX_WEIGHT = 20
MODEL_KINDS = ("model", "clinician_reference")
TURN_ROLES = ("user", "assistant")
# "Non-empty" text holds a character that is not one of these (space, tab, line feed, form
# feed, carriage return): the white space of macros/is_blank.sql, where the warehouse reads it
WHITE_SPACE = " \t\n\f\r"


def file_name(table: str) -> str:
    return f"{table}.parquet"


def table_name(file: str) -> str:
    return file.removesuffix(".parquet")


@cache
def _seed(name: str) -> tuple[dict[str, str], ...]:
    with (SEEDS_DIR / f"{name}.csv").open(newline="", encoding="utf-8") as handle:
        return tuple(csv.DictReader(handle))


def dimensions() -> tuple[str, ...]:
    """The seven dimension ids, in display order."""
    rows = sorted(_seed("dimensions"), key=lambda row: int(row["display_order"]))
    return tuple(row["dimension_id"] for row in rows)


def dimension_kinds() -> dict[str, str]:
    """dimension id -> 'act' or 'withhold'."""
    return {row["dimension_id"]: row["dimension_kind"] for row in _seed("dimensions")}


def subcategories() -> tuple[str, ...]:
    """The 23 subcategory ids, in display order."""
    rows = sorted(_seed("subcategories"), key=lambda row: int(row["display_order"]))
    return tuple(row["subcategory_id"] for row in rows)


def paper_values() -> dict[str, float]:
    """metric -> the value the paper reports, for the registry's metrics that have one."""
    rows = _seed("headline_metric_registry")
    return {row["metric"]: float(row["paper_value"]) for row in rows if row["paper_value"]}


def release_files(release_dir: Path) -> dict[str, Path]:
    """table -> path, for the tables present in a release folder as regular files (a FIFO,
    folder or device of that name is never opened: the gate reports it)."""
    tables = REQUIRED_TABLES + OPTIONAL_TABLES
    return {t: release_dir / file_name(t) for t in tables if (release_dir / file_name(t)).is_file()}
