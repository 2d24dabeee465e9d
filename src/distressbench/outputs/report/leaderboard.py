"""The report's words under the leaderboard, read from rpt_leaderboard: which models are shown
unranked and why (like ranked with like), and on whose replies the judge misses its
calibration floor."""

from __future__ import annotations

import html

import duckdb

from distressbench.outputs.tables.formatting import Wording


def leaderboard_notes(connection: duckdb.DuckDBPyConnection, wording: Wording) -> str:
    """One paragraph per note, empty when every model is ranked and the judge meets its floor
    on every model's replies."""
    unranked = connection.execute(
        "select label, unranked_reason from reporting.rpt_leaderboard where row_group = 'unranked' order by row_order"
    ).fetchall()
    below = connection.execute(
        "select label from reporting.rpt_leaderboard where is_below_judge_floor order by row_order"
    ).fetchall()
    paragraphs = []
    if unranked:
        shown = "; ".join(f"{html.escape(label)}: {html.escape(reason or '')}" for label, reason in unranked)
        paragraphs.append(
            f"Shown unranked, below the ranked models ({len(unranked)}): {shown}. Only models judged alike are "
            "ranked together; an unranked model has its score and interval but no rank, letters or rank bound, "
            "and moves no headline."
        )
    if below:
        names = ", ".join(html.escape(label) for (label,) in below)
        paragraphs.append(
            f"The judge misses its calibration floor on the replies of {len(below)} model(s), marked "
            f"{html.escape(wording.floor_mark)}: {names}. Their scores rest on verdicts the clinicians do not "
            "vouch for (table J4)."
        )
    return "".join(f"<p>{paragraph}</p>\n" for paragraph in paragraphs)
