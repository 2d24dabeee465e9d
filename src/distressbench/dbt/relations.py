"""The dbt relation names the Python code reads or selects, written once: the staging model of
each release table, the aggregate of the judge labels, and the marts read outside dbt."""

from __future__ import annotations

from collections.abc import Iterable

STAGING_SCHEMA = "staging"
INTERMEDIATE_SCHEMA = "intermediate"
STAGING_PREFIX = "stg_release__"
# the judge labels are read once, by this aggregate (their view stg_release__judge_labels is
# ephemeral): the gate runs it with the staging models, and the audit counts the labels in it
JUDGE_LABELS_AGGREGATE = "int_judge_labels_aggregated"
HEADLINE_METRICS = "marts.headline_metrics"
CELL_SCORES = "marts.cell_scores"
VERDICTS = "marts.verdicts"


def staging_model(table: str) -> str:
    """The dbt model that stages the release table `table` (the judge labels' aggregate for
    the labels)."""
    return JUDGE_LABELS_AGGREGATE if table == "judge_labels" else f"{STAGING_PREFIX}{table}"


def staging_models(present: Iterable[str]) -> list[str]:
    """The models the gate's staging run builds for a release whose files are `present`: the
    manifest's and each present table's (the judge labels' aggregate for the labels). The
    staging model of an absent optional table is not among them: the build makes it, empty."""
    return [staging_model(table) for table in ("manifest", *present)]


def staging_relation(table: str) -> str:
    """The relation (schema.name) dbt builds for the release table `table`."""
    schema = INTERMEDIATE_SCHEMA if table == "judge_labels" else STAGING_SCHEMA
    return f"{schema}.{staging_model(table)}"
