"""The report's "Changes since <previous release>" section, read from the reporting models.

Two tables, C1 (rpt_release_changes: each model against the previous release) and C2
(rpt_headline_changes: each headline metric), formatted like the paper tables. When no
other release was published into the warehouse before this one, the section says so plainly.
"""

from __future__ import annotations

import html

import duckdb

from distressbench.outputs.tables.formatting import Wording
from distressbench.outputs.tables.load import load_tables
from distressbench.outputs.tables.render import to_html
from distressbench.outputs.tables.table import Column, TableSpec

CHANGE_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="C1",
        slug="release_changes",
        title="Models against the previous release",
        caption=(
            "Each model of this release or the previous one: score (%) with its {level} bootstrap interval "
            "in both, the difference in percentage points, and the rank in both (rank change: positive when the model "
            "moved up), the letters (models sharing a letter cannot be told apart) and the rank upper bound (1 + the "
            "models clearly better) in both. Unchanged means the same score, interval, letters and rank bound; a rank "
            "can shift when another model enters or leaves, and letters are named by score, so a model entering above "
            "renames them. Not comparable: the two releases differ in their task set (the section says how), so "
            "no difference or rank change is given."
        ),
        model="rpt_release_changes",
        columns=(
            Column("Model", "text", ("label",)),
            Column("Status", "text", ("status",)),
            Column("This release (%) [{level} CI]", "pct_ci", ("score", "ci_low", "ci_high")),
            Column(
                "Previous (%) [{level} CI]",
                "pct_ci",
                ("previous_score", "previous_ci_low", "previous_ci_high"),
            ),
            Column("Difference (pp)", "pp", ("score_difference",)),
            Column("Rank", "count", ("rank",)),
            Column("Previous rank", "count", ("previous_rank",)),
            Column("Rank change", "count", ("rank_change",)),
            Column("Letters", "text", ("letters",)),
            Column("Previous letters", "text", ("previous_letters",)),
            Column("Rank bound", "count", ("rank_upper_bound",)),
            Column("Previous rank bound", "count", ("previous_rank_upper_bound",)),
        ),
    ),
    TableSpec(
        key="C2",
        slug="headline_changes",
        title="Headline metrics against the previous release",
        caption="Each headline metric (%) on this release and the previous one, and the difference (pp).",
        model="rpt_headline_changes",
        columns=(
            Column("Metric", "text", ("label",)),
            Column("This release (%) [{level} CI]", "pct_ci", ("value", "ci_low", "ci_high")),
            Column(
                "Previous (%) [{level} CI]",
                "pct_ci",
                ("previous_value", "previous_ci_low", "previous_ci_high"),
            ),
            Column("Difference (pp)", "pp", ("difference",)),
        ),
    ),
)


def previous_release_ids(connection: duckdb.DuckDBPyConnection) -> list[str]:
    """The release(s) the change tables compare with: none, or the one previous release."""
    rows = connection.execute(
        "select previous_release_id from reporting.rpt_release_changes"
        " union select previous_release_id from reporting.rpt_headline_changes"
    ).fetchall()
    return sorted(str(previous) for (previous,) in rows if previous is not None)


def changes_section(connection: duckdb.DuckDBPyConnection, wording: Wording) -> str:
    """The section's content: the two tables, or a plain word that there is no previous release."""
    previous = previous_release_ids(connection)
    if not previous:
        return (
            "<p>There is no previous release: no other release was published into this warehouse before this one, "
            "so there is nothing to compare with.</p>"
        )
    name = html.escape(", ".join(previous))
    models, headline = load_tables(connection, wording, CHANGE_TABLES)
    reasons = connection.execute(
        "select distinct not_comparable_reason from reporting.rpt_headline_changes"
        " where not_comparable_reason is not null"
    ).fetchall()
    words = "".join(
        f"<p><strong>Not comparable:</strong> {html.escape(str(reason))}. The two releases did not measure the same "
        "tasks, so their scores are shown side by side without a difference, and no model is called changed or "
        "unchanged.</p>"
        for (reason,) in reasons
    )
    return (
        f"<p>This release against {name}, the latest other release published into this warehouse "
        "(its results are kept in the schema <code>history</code>).</p>"
        f"{words}{to_html(models)}{to_html(headline)}"
    )


def changes_title(connection: duckdb.DuckDBPyConnection) -> str:
    """The section's heading: "Changes since <previous release>"."""
    previous = previous_release_ids(connection)
    return f"Changes since {', '.join(previous)}" if previous else "Changes since the previous release"
