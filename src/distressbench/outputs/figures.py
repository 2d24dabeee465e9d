"""The report's figures, drawn with matplotlib (Agg) from the loaded paper tables.

Each function takes the `Table` it plots and the `Wording` (the dbt vars a figure may print:
the intervals' level) and returns an SVG document (bytes). Figures read
the same raw values as the tables and print numbers with the tables' formatters, so a
number in a figure is the number in the table.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from distressbench.outputs.tables.formatting import Wording, pct, ratio  # noqa: E402
from distressbench.outputs.tables.table import Table  # noqa: E402

STYLE = {
    "svg.hashsalt": "distressbench",
    "svg.fonttype": "path",
    "text.parse_math": False,  # labels are data: a "$" is a dollar sign
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
}
MODEL = "#2f6690"
REFERENCE = "#c0504d"
LIGHT = "#b9d3e6"
HEATMAP = "YlGnBu"
ANNOTATE_MAX_COLUMNS = 14
# The widest figure, inches: 960 px at 96 px an inch, the width the report shows figures at.
MAX_WIDTH = 10.0
# Room for the labels right of the points, as a share of the data's span on the axis.
LABEL_ROOM = 0.35


def _svg(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return buffer.getvalue()


def _figure(width: float, height: float) -> Figure:
    """A figure at most MAX_WIDTH inches wide: the report shows it at its own size (never
    scaled down), so every label keeps the size it is drawn at."""
    return plt.figure(figsize=(min(width, MAX_WIDTH), height), layout="constrained")


def _fit_scores(ax: Axes, values: np.ndarray, *, label_room: float) -> None:
    """A score axis (%) fitted to the data, so that an interval is wider than its marker: from
    the multiple of 5 below the lowest value to the one above the highest (within 0-100),
    ticked every 5 or 10 points, with `label_room` (a share of that span) to the right for
    the labels annotated beside the points."""
    finite = values[np.isfinite(values)]
    low = max(0.0, float(np.floor(finite.min() / 5) * 5)) if finite.size else 0.0
    high = min(100.0, float(np.ceil(finite.max() / 5) * 5)) if finite.size else 100.0
    high = max(high, low + 5)
    ax.set_xlim(low, high + label_room * (high - low))
    ax.set_xticks(np.arange(low, high + 0.5, 5 if high - low <= 40 else 10))


def _rows(table: Table, groups: Sequence[str]) -> list[dict[str, object]]:
    return [r for r in table.records() if r.get("row_group") in groups]


def _percent(values: Sequence[object]) -> np.ndarray:
    return np.array([np.nan if v is None else 100 * float(v) for v in values], dtype=float)


def _text_colour(value: float) -> str:
    return "white" if value >= 65 else "black"


def _heatmap(
    ax: Axes, matrix: np.ndarray, row_labels: Sequence[str], col_labels: Sequence[str], *, annotate: bool
) -> None:
    masked = np.ma.masked_invalid(matrix)
    image = ax.imshow(masked, cmap=HEATMAP, vmin=0, vmax=100, aspect="auto")
    # many columns: labels upright, so that each keeps clear of the next
    rotation = 40 if len(col_labels) <= ANNOTATE_MAX_COLUMNS else 90
    ax.set_xticks(range(len(col_labels)), col_labels, rotation=rotation, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(len(row_labels)), row_labels)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if annotate:
        for (i, j), value in np.ndenumerate(matrix):
            label = "—" if np.isnan(value) else pct(value / 100)
            ax.text(
                j, i, label, ha="center", va="center", fontsize=7, color=_text_colour(0 if np.isnan(value) else value)
            )
    ax.figure.colorbar(image, ax=ax, shrink=0.6, label="Score (%)")


def leaderboard(t2: Table, wording: Wording) -> bytes:
    """Model scores with their bootstrap intervals, best at the top, each ranked model with its
    letters (models sharing a letter are not clearly different); below the ranked models, the
    models shown unranked (judged otherwise) and the clinician reference, a row apart."""
    rows = _rows(t2, ("model",)) + _rows(t2, ("unranked",)) + _rows(t2, ("reference",))
    n = len(rows)
    with plt.rc_context(STYLE):
        fig = _figure(8, 0.9 + 0.32 * (n + 1))
        ax = fig.add_subplot()
        y = np.array([i + (0 if r["row_group"] == "model" else 1) for i, r in enumerate(rows)], dtype=float)
        score = _percent([r["score"] for r in rows])
        low = _percent([r["ci_low"] for r in rows])
        high = _percent([r["ci_high"] for r in rows])
        colours = [MODEL if r["row_group"] == "model" else REFERENCE for r in rows]
        for yi, s, lo, hi, colour, row in zip(y, score, low, high, colours, rows, strict=False):
            if not np.isnan(lo) and not np.isnan(hi):
                ax.plot([lo, hi], [yi, yi], color=colour, lw=1.6, zorder=2)
            ax.plot([s], [yi], "o" if row["row_group"] == "model" else "D", color=colour, ms=5, zorder=3)
            label = pct(row["score"])
            if row["ci_low"] is not None and row["ci_high"] is not None:
                label += f" [{pct(row['ci_low'])}, {pct(row['ci_high'])}]"
            ax.annotate(
                label, (np.nanmax([s, hi]), yi), xytext=(6, 0), textcoords="offset points", va="center", fontsize=8
            )
        labels = [
            f"{r['rank']}. {r['label']}" + (f"  ({r['letters']})" if r["letters"] is not None else "")
            if r["row_group"] == "model"
            else f"{r['label']} (not ranked)"
            for r in rows
        ]
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        _fit_scores(ax, np.concatenate([score, low, high]), label_room=LABEL_ROOM)
        ax.set_xlabel(f"Score (%) with {wording.level} bootstrap interval")
        ax.set_title("Leaderboard: models that share a letter are not clearly different")
        ax.grid(axis="x", color="#dddddd", lw=0.6, zorder=1)
        ax.tick_params(axis="y", length=0)
        return _svg(fig)


def dimension_heatmap(t3: Table, wording: Wording) -> bytes:
    """Models × dimensions (score, %); best and median rows left to the next figure."""
    rows = _rows(t3, ("model", "reference"))
    dims = [c for c in t3.columns if c.group is not None]
    matrix = np.array([_percent([r[c.sources[0]] for c in dims]) for r in rows]).reshape(len(rows), len(dims))
    with plt.rc_context(STYLE):
        fig = _figure(8, 1.6 + 0.36 * len(rows))
        ax = fig.add_subplot()
        labels = [str(r["label"]) for r in rows]
        _heatmap(ax, matrix, labels, [f"{c.header}\n({c.group.lower()})" for c in dims], annotate=True)
        if any(r["row_group"] == "reference" for r in rows):
            ax.axhline(len(rows) - 1.5, color="white", lw=3)
        ax.set_title("Dimension scores (%) by model")
        return _svg(fig)


def best_vs_median(t3: Table, wording: Wording) -> bytes:
    """Best and median ranked model per dimension, act dimensions apart from withhold ones."""
    best = _rows(t3, ("best",))
    median = _rows(t3, ("median",))
    dims = [c for c in t3.columns if c.group is not None]
    act = [c for c in dims if c.group == "Act"]
    withhold = [c for c in dims if c.group != "Act"]
    ordered = act + withhold
    with plt.rc_context(STYLE):
        fig = _figure(8, 4.0)
        ax = fig.add_subplot()
        x = np.arange(len(ordered), dtype=float)
        x[len(act) :] += 0.6  # a gap before the withhold dimensions
        width = 0.38
        for offset, rows, colour, name in (
            (-width / 2, best, MODEL, "Best model"),
            (width / 2, median, LIGHT, "Median model"),
        ):
            if not rows:
                continue
            raw = [rows[0][c.sources[0]] for c in ordered]
            heights = _percent(raw)
            ax.bar(x + offset, np.nan_to_num(heights), width, color=colour, label=name, edgecolor=MODEL, lw=0.6)
            for xi, h, value in zip(x + offset, heights, raw, strict=False):
                ax.text(xi, (0 if np.isnan(h) else h) + 1.5, pct(value), ha="center", va="bottom", fontsize=7)
        if withhold:
            ax.axvline((x[len(act) - 1] + x[len(act)]) / 2 if act else -0.7, color="#999999", ls="--", lw=0.8)
        ax.set_xticks(x, [textwrap.fill(c.header, 12, break_on_hyphens=False, break_long_words=False) for c in ordered])
        for label, members in (("Act", act), ("Withhold", withhold)):
            if members:
                centre = float(np.mean(x[[ordered.index(c) for c in members]]))
                ax.text(centre, 110, label, ha="center", va="bottom", fontsize=9, style="italic")
        ax.set_ylim(0, 118)
        ax.set_yticks(range(0, 101, 20))
        ax.set_ylabel("Dimension score (%)")
        fig.legend(loc="outside lower center", ncol=2, frameon=False)
        ax.set_title("Best and median ranked model per dimension")
        return _svg(fig)


def recognized_not_routed(t4: Table, wording: Wording) -> bytes:
    """Per model: recognized replies, and those of them not routed (rate annotated)."""
    rows = _rows(t4, ("model", "reference"))
    pooled = _rows(t4, ("pooled",))
    with plt.rc_context(STYLE):
        fig = _figure(8, 1.0 + 0.32 * max(len(rows), 1))
        ax = fig.add_subplot()
        y = np.arange(len(rows), dtype=float)
        recognized = np.array([r["n_recognized"] or 0 for r in rows], dtype=float)
        not_routed = np.array([r["n_not_routed"] or 0 for r in rows], dtype=float)
        ax.barh(y, recognized, color=LIGHT, label="Recognized", height=0.7)
        ax.barh(y, not_routed, color=REFERENCE, label="Recognized but not routed", height=0.7)
        for yi, rec, row in zip(y, recognized, rows, strict=False):
            ax.annotate(
                f"{pct(row['rate'])}%", (rec, yi), xytext=(4, 0), textcoords="offset points", va="center", fontsize=8
            )
        ax.set_yticks(y, [str(r["label"]) for r in rows])
        ax.invert_yaxis()
        ax.set_xlim(0, max(recognized.max(initial=1) * 1.15, 1))
        ax.set_xlabel("Replies (model × task cells); label: not-routed rate")
        title = "Recognized but not routed"
        if pooled:
            title += f" (pooled over ranked models: {pct(pooled[0]['rate'])}%)"
        ax.set_title(title)
        fig.legend(loc="outside lower center", ncol=2, frameon=False)
        ax.tick_params(axis="y", length=0)
        return _svg(fig)


def turn_types(t5: Table, wording: Wording) -> bytes:
    """Single-turn vs multi-turn score per model, pooled row and reference included."""
    rows = _rows(t5, ("model", "pooled", "reference"))
    with plt.rc_context(STYLE):
        fig = _figure(8, 1.0 + 0.32 * max(len(rows), 1))
        ax = fig.add_subplot()
        y = np.arange(len(rows), dtype=float)
        single = _percent([r["single_score"] for r in rows])
        multi = _percent([r["multi_score"] for r in rows])
        for yi, s, m in zip(y, single, multi, strict=False):
            if not np.isnan(s) and not np.isnan(m):
                ax.plot([s, m], [yi, yi], color="#bbbbbb", lw=2, zorder=1)
        ax.scatter(single, y, color=MODEL, label="Single-turn", zorder=2, s=28)
        ax.scatter(multi, y, color=REFERENCE, marker="s", label="Multi-turn", zorder=2, s=28)
        for yi, s, m, row in zip(y, single, multi, rows, strict=False):
            right = np.nanmax([s, m])
            ax.annotate(
                f"{pct(row['single_score'])} / {pct(row['multi_score'])}",
                (right, yi),
                xytext=(8, 0),
                textcoords="offset points",
                va="center",
                fontsize=8,
            )
        ax.set_yticks(y, [str(r["label"]) for r in rows])
        ax.invert_yaxis()
        _fit_scores(ax, np.concatenate([single, multi]), label_room=LABEL_ROOM)
        ax.set_xlabel("Mean cell score (%); label: single / multi")
        ax.set_title("Single-turn vs multi-turn conversations")
        fig.legend(loc="outside lower center", ncol=2, frameon=False)
        ax.grid(axis="x", color="#dddddd", lw=0.6, zorder=0)
        ax.tick_params(axis="y", length=0)
        return _svg(fig)


def subcategory_heatmap(t6: Table, wording: Wording) -> bytes:
    """Subcategories × (pooled, each model) mean cell score."""
    models = [c for c in t6.columns if c.group is not None]
    columns = [("pooled_score", "All ranked models")] + [(c.sources[0], c.header) for c in models]
    records = t6.records()
    matrix = np.array([_percent([r[f] for f, _ in columns]) for r in records]).reshape(len(records), len(columns))
    with plt.rc_context(STYLE):
        fig = _figure(min(4 + 0.55 * len(columns), 16), 2.2 + 0.3 * len(records))
        ax = fig.add_subplot()
        _heatmap(
            ax,
            matrix,
            [str(r["label"]) for r in records],
            [h for _, h in columns],
            annotate=len(columns) <= ANNOTATE_MAX_COLUMNS,
        )
        ax.axvline(0.5, color="white", lw=3)
        ax.set_title("Mean cell score (%) by subcategory")
        return _svg(fig)


def calibration(t7: Table, wording: Wording) -> bytes:
    """Judge against clinicians per dimension: agreement, precision, recall, F1 (%) and kappa."""
    rows = t7.records()
    labels = [str(r["label"]) for r in rows]
    metrics = (("agreement", "Agreement"), ("precision", "Precision"), ("recall", "Recall"), ("f1", "F1"))
    with plt.rc_context(STYLE):
        fig = _figure(8, 1.2 + 0.42 * max(len(rows), 1))
        left, right = fig.subplots(1, 2, sharey=True, width_ratios=(3, 1.3))
        y = np.arange(len(rows), dtype=float)
        height = 0.8 / len(metrics)
        colours = ("#2f6690", "#81c3d7", "#f2a541", "#c0504d")
        for k, ((name, title), colour) in enumerate(zip(metrics, colours, strict=False)):
            values = _percent([r[name] for r in rows])
            left.barh(y - 0.4 + height * (k + 0.5), np.nan_to_num(values), height, color=colour, label=title)
        left.set_yticks(y, [f"{label} (n = {r['n']})" for label, r in zip(labels, rows, strict=False)])
        left.invert_yaxis()
        left.set_xlim(0, 100)
        left.set_xlabel("%")
        fig.legend(loc="outside lower center", ncol=4, frameon=False)
        left.set_title("Judge vs clinicians' majority label")
        left.tick_params(axis="y", length=0)
        kappa = np.array([np.nan if r["kappa"] is None else float(r["kappa"]) for r in rows])
        right.hlines(y, 0, np.nan_to_num(kappa), color="#bbbbbb", lw=2)
        right.scatter(kappa, y, color=MODEL, zorder=2, s=26)
        for yi, row, value in zip(y, rows, kappa, strict=False):
            where = (0.0 if np.isnan(value) else value, yi)
            right.annotate(
                ratio(row["kappa"]), where, xytext=(5, 0), textcoords="offset points", va="center", fontsize=8
            )
        right.set_xlim(min(0.0, float(np.nanmin(kappa, initial=0.0))), 1.3)
        right.axvline(0, color="#999999", lw=0.6)
        right.set_xlabel("Cohen's κ")
        right.set_title("Cohen's κ")
        right.tick_params(axis="y", length=0)
        return _svg(fig)


def judge_reliability(j1: Table, wording: Wording) -> bytes:
    """Per dimension: Cohen's kappa against the clinicians with its bootstrap interval, against the
    calibration floor (dimensions that miss it in red, hollow), and Krippendorff's alpha."""
    rows = j1.records()
    labels = [str(r["label"]) for r in rows]
    with plt.rc_context(STYLE):
        fig = _figure(8, 1.4 + 0.42 * max(len(rows), 1))
        left, right = fig.subplots(1, 2, sharey=True, width_ratios=(2.2, 1.3))
        y = np.arange(len(rows), dtype=float)
        floors = {float(r["kappa_floor"]) for r in rows if r["kappa_floor"] is not None}
        for floor in sorted(floors):
            left.axvline(floor, color=REFERENCE, ls="--", lw=0.9, zorder=1)
            left.annotate(
                f"floor {ratio(floor)}",
                (floor, -0.6),
                xytext=(3, 0),
                textcoords="offset points",
                color=REFERENCE,
                fontsize=8,
                va="center",
            )
        for yi, row in zip(y, rows, strict=True):
            colour = MODEL if row["meets_calibration_floor"] else REFERENCE
            low, high = row["kappa_ci_low"], row["kappa_ci_high"]
            if low is not None and high is not None:
                left.plot([low, high], [yi, yi], color=colour, lw=1.6, zorder=2)
            if row["kappa"] is not None:
                face = colour if row["meets_calibration_floor"] else "white"
                left.plot([row["kappa"]], [yi], "o", color=colour, markerfacecolor=face, ms=6, zorder=3)
            label = ratio(row["kappa"]) + ("" if row["meets_calibration_floor"] else " (misses floor)")
            where = 0.0 if row["kappa"] is None else max(float(row["kappa"]), float(high if high is not None else 0))
            left.annotate(label, (where, yi), xytext=(6, 0), textcoords="offset points", va="center", fontsize=8)
        left.set_yticks(y, [f"{label} (n = {r['n']})" for label, r in zip(labels, rows, strict=True)])
        left.invert_yaxis()
        kappas = [v for r in rows for v in (r["kappa"], r["kappa_ci_low"]) if v is not None]
        low_end = min([0.0, *kappas]) - 0.05
        left.set_xlim(low_end, 1.45)
        left.set_xticks([t for t in (-1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0) if t >= low_end])
        left.axvline(0, color="#999999", lw=0.6)
        left.set_xlabel(f"Cohen's κ against the clinicians, {wording.level} bootstrap interval")
        left.set_title("Judge vs clinicians")
        left.tick_params(axis="y", length=0)
        alpha = np.array([np.nan if r["krippendorff_alpha"] is None else float(r["krippendorff_alpha"]) for r in rows])
        right.barh(y, np.nan_to_num(alpha), 0.6, color=LIGHT, edgecolor=MODEL, lw=0.6)
        for yi, row, value in zip(y, rows, alpha, strict=True):
            where = (0.0 if np.isnan(value) else max(value, 0.0), yi)
            right.annotate(
                ratio(row["krippendorff_alpha"]),
                where,
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                fontsize=8,
            )
        right.set_xlim(min(0.0, float(np.nanmin(alpha, initial=0.0))) - 0.05, 1.35)
        right.axvline(0, color="#999999", lw=0.6)
        right.set_xlabel("Krippendorff's α (self-consistency)")
        right.set_title("Judge vs itself")
        right.tick_params(axis="y", length=0)
        return _svg(fig)
