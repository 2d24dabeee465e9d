"""The paper's tables, read from the reporting models and rendered as CSV, Markdown, LaTeX or HTML.

One definition layer, several renderers, so the formats cannot diverge:

- a `TableSpec` names the dbt reporting model that holds its rows (models/reporting/rpt_*.sql:
  the marts with labels and display order, in `row_order`) plus display columns; a `Pivot`
  turns a long model into one column per dimension / model, its columns listed by a second
  reporting model. Python only reshapes and formats: every row, label and order comes from
  dbt; nothing is computed here.
- `load_tables` reads every spec and returns `Table`s: the raw fields and rows, and the
  display columns that say how to format them.
- the renderers (`to_csv`, `to_markdown`, `to_latex`, `to_html`) read the same `Table`.

Number formats. CSV carries the raw values: one column per stored field, scores and rates
as fractions in [0, 1] with every digit (Python's shortest round-trip repr), so a CSV reads
back to exactly the numbers in the marts. Markdown, LaTeX and HTML show what the paper
prints: percentages with one decimal (the CSV value rounded half up), bootstrap intervals (at
INTERVAL_LEVEL, 1 - the dbt var bootstrap_alpha) in brackets after the value, differences in
percentage points with a sign, Cohen's kappa with three decimals, "—" for a missing value.
Models are ordered by overall score (then model_id); the clinician reference has its own row
after the ranked models and the summary rows, and is never ranked.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import duckdb

from distressbench import settings
from distressbench.outputs.warehouse import connect_read_only

FORMATS: dict[str, str] = {"csv": "csv", "md": "md", "latex": "tex"}
REPORTING_SCHEMA = "reporting"
MISSING = "—"
MINUS = "−"

# --------------------------------------------------------------------------- formatting


def _decimal(value: Any, *, scale: int, places: int) -> Decimal | None:
    """value × 10**scale rounded half up to `places` decimals, from its shortest repr."""
    if value is None:
        return None
    number = float(value)
    if number != number:  # NaN
        return None
    exponent = Decimal(1).scaleb(-places)
    return Decimal(repr(number)).scaleb(scale).quantize(exponent, rounding=ROUND_HALF_UP)


def _signed_text(number: Decimal, *, plus: bool) -> str:
    if number == 0:
        return str(abs(number))
    if number < 0:
        return MINUS + str(-number)
    return f"+{number}" if plus else str(number)


def pct(value: Any) -> str:
    """A fraction as a percentage with one decimal: 0.8885 -> '88.9'."""
    number = _decimal(value, scale=2, places=1)
    return MISSING if number is None else _signed_text(number, plus=False)


def pp(value: Any) -> str:
    """A difference of fractions in signed percentage points: -0.0081 -> '−0.8'."""
    number = _decimal(value, scale=2, places=1)
    return MISSING if number is None else _signed_text(number, plus=True)


def ratio(value: Any) -> str:
    """A ratio that is not a share (Cohen's kappa), three decimals."""
    number = _decimal(value, scale=0, places=3)
    return MISSING if number is None else _signed_text(number, plus=False)


def count(value: Any) -> str:
    """A count or other number: integers with thousands separators, else one decimal."""
    if value is None or (isinstance(value, float) and value != value):
        return MISSING
    number = Decimal(repr(float(value))) if isinstance(value, float) else Decimal(int(value))
    if number == number.to_integral_value():
        return f"{int(number):,}"
    return _signed_text(number.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP), plus=False)


def text(value: Any) -> str:
    return MISSING if value is None else str(value)


def _pct_ci(value: Any, low: Any, high: Any) -> str:
    if low is None or high is None:
        return pct(value)
    return f"{pct(value)} [{pct(low)}, {pct(high)}]"


def _interval(low: Any, high: Any) -> str:
    if low is None or high is None:
        return MISSING
    return f"[{count(low)}, {count(high)}]"


def _ratio_ci(value: Any, low: Any, high: Any) -> str:
    if low is None or high is None:
        return ratio(value)
    return f"{ratio(value)} [{ratio(low)}, {ratio(high)}]"


def _statistic(value: Any, unit: Any) -> str:
    return f"{pct(value)}%" if unit == "share" and value is not None else count(value)


FORMATTERS: dict[str, Callable[..., str]] = {
    "text": text,
    "count": count,
    "pct": pct,
    "pct_ci": _pct_ci,
    "pp": pp,
    "ratio": ratio,
    "interval": _interval,
    "ratio_ci": _ratio_ci,
    "statistic": _statistic,
}

# --------------------------------------------------------------------------- definitions


@dataclass(frozen=True)
class Column:
    """A display column: a header and how to format one or more raw fields."""

    header: str
    fmt: str
    sources: tuple[str, ...]
    group: str | None = None  # a spanner over adjacent columns (LaTeX, HTML)
    latex_header: str | None = None
    collapse: bool = False  # blank a value that repeats the row above (and all collapse columns left of it)

    @property
    def numeric(self) -> bool:
        return self.fmt != "text"


@dataclass(frozen=True)
class Pivot:
    """Spread a long reporting model into one raw field and one display column per key.

    The model has the `index` fields, then `pivot_key` and `pivot_value`; `columns` names
    the reporting model that lists the columns and its key, header and order columns (the
    spanner is its `column_group`)."""

    index: tuple[str, ...]
    columns: tuple[str, str, str, str]
    fmt: str = "pct"
    field_prefix: str = ""
    group_in_markdown: bool = True  # Markdown has no spanners: append the group to the header


@dataclass(frozen=True)
class TableSpec:
    key: str
    slug: str
    title: str
    caption: str
    model: str  # the reporting model (schema reporting) holding its rows, in row_order
    columns: tuple[Column, ...]
    pivot: Pivot | None = None
    wide: bool = False  # LaTeX: resize to the text width and turn the pivot headers

    @property
    def stem(self) -> str:
        return f"{self.key.lower()}_{self.slug}"


@dataclass(frozen=True)
class Table:
    """One loaded table: raw fields and rows (what CSV writes) and display columns."""

    spec: TableSpec
    fields: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    columns: tuple[Column, ...]
    _index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._index.update({name: i for i, name in enumerate(self.fields)})

    def get(self, row: tuple[Any, ...], name: str) -> Any:
        return row[self._index[name]]

    def column_values(self, name: str) -> list[Any]:
        i = self._index[name]
        return [row[i] for row in self.rows]

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.fields, row, strict=False)) for row in self.rows]

    def sections(self) -> list[str]:
        """Which block each row belongs to (renderers draw a rule between blocks)."""
        if "row_group" not in self._index:
            return ["" for _ in self.rows]
        return [_SECTION_OF.get(g, g) for g in self.column_values("row_group")]

    def cells(self) -> list[list[str]]:
        """The formatted display cells, row by row."""
        full = [[FORMATTERS[c.fmt](*(self.get(row, s) for s in c.sources)) for c in self.columns] for row in self.rows]
        shown = [list(cells) for cells in full]
        collapsing = [i for i, c in enumerate(self.columns) if c.collapse]
        sections = self.sections()
        for r in range(1, len(full)):
            if sections[r] != sections[r - 1]:
                continue
            for i in collapsing:
                if all(full[r][j] == full[r - 1][j] for j in collapsing if j <= i):
                    shown[r][i] = ""
        return shown


_SECTION_OF = {"best": "summary", "median": "summary", "pooled": "summary"}

# The pivot column lists: (reporting model, key column, header column, order column); the
# spanner is its column_group.
MODEL_COLUMNS = ("rpt_model_order", "model_id", "display_name", "model_order")
DIMENSION_COLUMNS = ("rpt_dimension_columns", "dimension_id", "label", "display_order")

_MODEL = Column("Model", "text", ("label",))

# A dimension whose judge misses the calibration floor carries FLOOR_MARK (the dbt var
# calibration_floor_mark) in its labels; the reporting models put it there
# (rpt_dimension_columns.floor_mark), the captions explain it.
FLOOR_MARK: str = settings.dbt_var("calibration_floor_mark")
_FLOOR_NOTE = (
    f" {FLOOR_MARK}: the judge misses the calibration floor on this dimension (Cohen's κ against the clinicians "
    "below the floor, or too few calibrated pairs; table J1), so its scores rest on a judge not shown to be "
    "trustworthy there."
)



def interval_level(alpha: float) -> str:
    """The percentile intervals' level as the captions print it: 0.05 -> '95%', 0.025 -> '97.5%'."""
    return f"{(1 - float(alpha)) * 100:g}%"


# The level of every bootstrap interval the tables, report and figures show: 1 - the dbt var
# bootstrap_alpha, the alpha the bootstrap models were built with.
INTERVAL_LEVEL: str = interval_level(settings.dbt_var("bootstrap_alpha"))

T1 = TableSpec(
    key="T1",
    slug="corpus_stats",
    title="Corpus statistics",
    caption="Tasks, criteria, weights, replies and labels of the release. Shares in percent.",
    model="rpt_corpus_stats",
    columns=(
        Column("Section", "text", ("section_label",), collapse=True),
        Column("Item", "text", ("item_label",), collapse=True),
        Column("Statistic", "text", ("statistic_label",)),
        Column("Value", "statistic", ("value", "unit")),
    ),
)

T2 = TableSpec(
    key="T2",
    slug="leaderboard",
    title="Leaderboard",
    caption=(
        f"Model score (mean weighted share of criteria met over all tasks, %) with its {INTERVAL_LEVEL} bootstrap "
        "interval; rank among ranked models (equal scores share a rank); tie group (models in one group cannot be "
        "told apart: the paired interval of adjacent models includes 0); the rank's "
        f"{INTERVAL_LEVEL} bootstrap interval and the probability of ranking first. The clinician reference is shown "
        "beside the models, not ranked."
    ),
    model="rpt_leaderboard",
    columns=(
        Column("Rank", "count", ("rank",)),
        _MODEL,
        Column(f"Score (%) [{INTERVAL_LEVEL} CI]", "pct_ci", ("score", "ci_low", "ci_high")),
        Column("Tie group", "count", ("tie_group",)),
        Column(f"Rank [{INTERVAL_LEVEL} CI]", "interval", ("rank_ci_low", "rank_ci_high")),
        Column("P(rank 1) (%)", "pct", ("p_rank_1",), latex_header=r"$P(\mathrm{rank}=1)$ (\%)"),
    ),
)

T3 = TableSpec(
    key="T3",
    slug="dimension_scores",
    title="Scores by dimension",
    caption=(
        "Dimension score (%): over the tasks with at least one criterion in the dimension, the mean weighted share "
        "of its criteria met. Act dimensions ask the reply to do something; the withhold dimension asks it to hold "
        "back. Best and median are over ranked models (the median of an even count is the mean of the middle two)."
        + _FLOOR_NOTE
    ),
    model="rpt_dimension_scores",
    columns=(_MODEL,),
    pivot=Pivot(
        index=("release_id", "row_group", "model_id", "label"),
        columns=DIMENSION_COLUMNS,
    ),
)

T4 = TableSpec(
    key="T4",
    slug="recognized_not_routed",
    title="Recognized but not routed",
    caption=(
        "Of the replies that met every recognition criterion of a task with routing criteria (recognized), those "
        f"that failed routing (not routed), and the rate (%). Pooled over ranked models, with its {INTERVAL_LEVEL} "
        "bootstrap interval."
    ),
    model="rpt_recognized_not_routed",
    columns=(
        _MODEL,
        Column("Recognized", "count", ("n_recognized",)),
        Column("Not routed", "count", ("n_not_routed",)),
        Column("Rate (%)", "pct_ci", ("rate", "rate_ci_low", "rate_ci_high")),
    ),
)

T5 = TableSpec(
    key="T5",
    slug="turn_type_scores",
    title="Single-turn and multi-turn conversations",
    caption=(
        "Mean cell score (%) over single-turn conversations (one user turn) and multi-turn ones, per model and "
        f"pooled over all cells of ranked models (with {INTERVAL_LEVEL} bootstrap intervals)."
    ),
    model="rpt_turn_type_scores",
    columns=(
        _MODEL,
        Column("Single-turn (%)", "pct_ci", ("single_score", "single_ci_low", "single_ci_high")),
        Column("Multi-turn (%)", "pct_ci", ("multi_score", "multi_ci_low", "multi_ci_high")),
    ),
)

T6 = TableSpec(
    key="T6",
    slug="subcategory_scores",
    title="Scores by subcategory",
    caption=(
        "Mean cell score (%) per crisis subcategory: pooled over ranked models, and per model (models ordered by "
        "overall score; the clinician reference last)."
    ),
    model="rpt_subcategory_scores",
    columns=(
        Column("Subcategory", "text", ("label",)),
        Column("Tasks", "count", ("n_tasks",)),
        Column("All ranked models (%)", "pct", ("pooled_score",)),
    ),
    pivot=Pivot(
        index=("release_id", "subcategory", "label", "n_tasks", "pooled_score"),
        columns=MODEL_COLUMNS,
        field_prefix="score_",
        group_in_markdown=False,
    ),
    wide=True,
)

T7 = TableSpec(
    key="T7",
    slug="judge_calibration",
    title="Judge calibration",
    caption=(
        "The judge's verdicts against the clinicians' majority label on the calibrated pairs (pairs where the "
        "clinicians tie are dropped), with 'met' as the positive class: agreement, Cohen's kappa, precision, recall "
        "and F1 (%), overall and per dimension."
    ),
    model="rpt_judge_calibration",
    columns=(
        Column("Dimension", "text", ("label",)),
        Column("Pairs", "count", ("n",)),
        Column("Ties dropped", "count", ("n_ties_dropped",)),
        Column("Agreement (%)", "pct", ("agreement",)),
        Column("Cohen's κ", "ratio", ("kappa",)),
        Column("Precision (%)", "pct", ("precision",)),
        Column("Recall (%)", "pct", ("recall",)),
        Column("F1 (%)", "pct", ("f1",)),
    ),
)

A1 = TableSpec(
    key="A1",
    slug="redteam_summary",
    title="Red-team annex",
    caption=(
        "The long-horizon red-team transcripts of the annex: turns by role and length in characters. "
        "'—': the transcript names no model."
    ),
    model="rpt_redteam_summary",
    columns=(
        Column("Transcript", "text", ("transcript_id",)),
        Column("Model", "text", ("model_label",)),
        Column("Turns", "count", ("n_turns",)),
        Column("User turns", "count", ("n_user_turns",)),
        Column("Assistant turns", "count", ("n_assistant_turns",)),
        Column("Characters", "count", ("n_characters",)),
    ),
)

P = TableSpec(
    key="P",
    slug="paper_comparison",
    title="Comparison with the paper",
    caption=(
        f"Headline metrics of this release (%) with {INTERVAL_LEVEL} bootstrap intervals, the value the paper "
        "reports, and the difference (this release minus the paper, in percentage points). The judge's Cohen's κ and "
        "Krippendorff's α are ratios, shown × 100."
        + _FLOOR_NOTE
    ),
    model="rpt_paper_comparison",
    columns=(
        Column("Metric", "text", ("label",)),
        Column(f"This release (%) [{INTERVAL_LEVEL} CI]", "pct_ci", ("value", "ci_low", "ci_high")),
        Column("Paper (%)", "pct", ("paper_value",)),
        Column("Difference (pp)", "pp", ("difference_from_paper",)),
    ),
)

J1 = TableSpec(
    key="J1",
    slug="judge_reliability",
    title="Judge reliability by dimension",
    caption=(
        "How far the judge's verdicts can be trusted. Against the clinicians' majority label (calibrated pairs, "
        f"clinician ties dropped): Cohen's κ, agreement and F1 (%) with {INTERVAL_LEVEL} bootstrap intervals (tasks "
        "resampled); a dimension meets the calibration floor when κ reaches the floor (var calibration_kappa_floor, "
        f"{settings.dbt_var('calibration_kappa_floor')} by default) on at least calibration_min_pairs "
        f"({settings.dbt_var('calibration_min_pairs')}) pairs. Against itself (reply × criterion pairs of "
        "non-empty replies with at least two labels): the share of pairs whose labels all agree, the share "
        "tied (decided by the tie rule), the observed agreement between labels of a pair (%) and "
        "Krippendorff's α (nominal; — when undefined)."
    ),
    model="rpt_judge_reliability",
    columns=(
        Column("Dimension", "text", ("label",)),
        Column("Calibrated pairs", "count", ("n",), group="Against the clinicians"),
        Column(f"Cohen's κ [{INTERVAL_LEVEL} CI]", "ratio_ci", ("kappa", "kappa_ci_low", "kappa_ci_high"),
               group="Against the clinicians"),
        Column("Meets floor", "text", ("meets_floor_label",), group="Against the clinicians"),
        Column(f"Agreement (%) [{INTERVAL_LEVEL} CI]", "pct_ci", ("agreement", "agreement_ci_low", "agreement_ci_high"),
               group="Against the clinicians"),
        Column(f"F1 (%) [{INTERVAL_LEVEL} CI]", "pct_ci", ("f1", "f1_ci_low", "f1_ci_high"),
               group="Against the clinicians"),
        Column("Pairs with ≥ 2 labels", "count", ("n_consistency_pairs",), group="Against itself"),
        Column("Unanimous (%)", "pct", ("unanimous_share",), group="Against itself"),
        Column("Tied (%)", "pct", ("tie_share",), group="Against itself"),
        Column("Observed agreement (%)", "pct", ("observed_agreement",), group="Against itself"),
        Column("Krippendorff's α", "ratio", ("krippendorff_alpha",), group="Against itself"),
    ),
    wide=True,
)

J2 = TableSpec(
    key="J2",
    slug="ranking_sensitivity",
    title="Ranking sensitivity to the judge",
    caption=(
        "The leaderboard recomputed from a subset of the judge labels: each judge alone (all its samples, majority "
        "with the tie rule) and each single sample of a judge. Coverage (%): the reply × criterion pairs the subset "
        "labels. For a subset that labels every pair: the best and median ranked model score (%) under it, "
        "Kendall's τ-b between the ranked models' scores under it and their published scores, the ranked models "
        "whose rank changes and the largest change; — for a subset that does not cover every pair."
    ),
    model="rpt_ranking_sensitivity",
    columns=(
        Column("Labels", "text", ("label",)),
        Column("Coverage (%)", "pct", ("coverage",)),
        Column("Best model (%)", "pct", ("best_model_score",)),
        Column("Median model (%)", "pct", ("median_model_score",)),
        Column("Kendall's τ-b", "ratio", ("kendall_tau_b",), latex_header=r"Kendall's $\tau_b$"),
        Column("Rank changes", "count", ("n_rank_changes",)),
        Column("Largest rank change", "count", ("max_rank_change",)),
    ),
)

J3 = TableSpec(
    key="J3",
    slug="judge_agreement_by_judge",
    title="Judge self-consistency by judge",
    caption=(
        "Each judge against itself over all criteria: the reply × criterion pairs of non-empty replies with at "
        "least two labels of that judge, the share whose labels all agree, the share tied, the observed agreement "
        "between labels of a pair (%) and Krippendorff's α (nominal; — when undefined). The first row pools every "
        "judge's labels of a pair."
    ),
    model="rpt_judge_agreement_by_judge",
    columns=(
        Column("Judge", "text", ("label",)),
        Column("Pairs with ≥ 2 labels", "count", ("n_pairs",)),
        Column("Labels", "count", ("n_labels",)),
        Column("Unanimous (%)", "pct", ("unanimous_share",)),
        Column("Tied (%)", "pct", ("tie_share",)),
        Column("Observed agreement (%)", "pct", ("observed_agreement",)),
        Column("Krippendorff's α", "ratio", ("krippendorff_alpha",)),
    ),
)

J4 = TableSpec(
    key="J4",
    slug="judge_calibration_by_model",
    title="Judge calibration by model",
    caption=(
        "How far the judge can be trusted on each model's replies: its verdicts against the clinicians' majority "
        "label on the calibrated pairs of that model (clinician ties dropped, 'met' the positive class), over all "
        f"criteria and per dimension. Cohen's κ, agreement and F1 (%) with {INTERVAL_LEVEL} bootstrap intervals "
        "(tasks resampled, the same resamples as every other interval), precision and recall (%); the floor as in "
        "J1: κ at least calibration_kappa_floor on at least calibration_min_pairs pairs. A judge more lenient with "
        "one model's replies than another's moves that model's rank."
    ),
    model="rpt_judge_calibration_by_model",
    columns=(
        Column("Model", "text", ("model_label",), collapse=True),
        Column("Dimension", "text", ("label",)),
        Column("Pairs", "count", ("n",)),
        Column(f"Cohen's κ [{INTERVAL_LEVEL} CI]", "ratio_ci", ("kappa", "kappa_ci_low", "kappa_ci_high")),
        Column("Meets floor", "text", ("meets_floor_label",)),
        Column(
            f"Agreement (%) [{INTERVAL_LEVEL} CI]", "pct_ci", ("agreement", "agreement_ci_low", "agreement_ci_high")
        ),
        Column("Precision (%)", "pct", ("precision",)),
        Column("Recall (%)", "pct", ("recall",)),
        Column(f"F1 (%) [{INTERVAL_LEVEL} CI]", "pct_ci", ("f1", "f1_ci_low", "f1_ci_high")),
    ),
    wide=True,
)

TABLES: tuple[TableSpec, ...] = (T1, T2, T3, T4, T5, T6, T7, A1, P, J1, J2, J3, J4)

# --------------------------------------------------------------------------- loading


def _pivot(
    spec: TableSpec,
    pivot: Pivot,
    names: list[str],
    rows: list[tuple[Any, ...]],
    connection: duckdb.DuckDBPyConnection,
) -> tuple[tuple[str, ...], list[tuple[Any, ...]], tuple[Column, ...]]:
    position = {name: i for i, name in enumerate(names)}
    index_at = [position[name] for name in pivot.index]
    key_at, value_at = position["pivot_key"], position["pivot_value"]
    model, key, header, order = pivot.columns
    spread = connection.execute(
        f"select {key}, {header}, column_group from {REPORTING_SCHEMA}.{model} order by {order}"
    ).fetchall()
    keys = [str(key) for key, _, _ in spread]
    fields = tuple(pivot.index) + tuple(f"{pivot.field_prefix}{key}" for key in keys)
    if len(set(fields)) != len(fields):
        clash = sorted({f for f in fields if fields.count(f) > 1})
        raise ValueError(f"table {spec.key}: pivot columns clash with its fields: {clash}")
    grouped: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:  # at most models x subcategories rows: small
        values = grouped.setdefault(tuple(row[i] for i in index_at), {})
        if row[key_at] is not None:
            values[str(row[key_at])] = row[value_at]
    unknown = sorted({k for values in grouped.values() for k in values} - set(keys))
    if unknown:
        raise ValueError(
            f"table {spec.key}: {len(unknown)} pivot key(s) in the marts are missing from its column list, "
            f"e.g. {unknown[:3]}"
        )
    wide = [index + tuple(values.get(key) for key in keys) for index, values in grouped.items()]
    columns = spec.columns + tuple(
        Column(str(header), pivot.fmt, (f"{pivot.field_prefix}{key}",), group=None if group is None else str(group))
        for key, header, group in spread
    )
    return fields, wide, columns


def load_table(connection: duckdb.DuckDBPyConnection, spec: TableSpec) -> Table:
    """Read one table's reporting model, in its row order, and shape it."""
    result = connection.execute(f"select * exclude (row_order) from {REPORTING_SCHEMA}.{spec.model} order by row_order")
    names = [d[0] for d in result.description]
    rows = result.fetchall()
    if spec.pivot is None:
        return Table(spec, tuple(names), tuple(rows), spec.columns)
    fields, wide, columns = _pivot(spec, spec.pivot, names, rows, connection)
    return Table(spec, fields, tuple(wide), columns)


def load_tables(connection: duckdb.DuckDBPyConnection, specs: Sequence[TableSpec] = TABLES) -> list[Table]:
    """Every paper table, in order."""
    return [load_table(connection, spec) for spec in specs]


# --------------------------------------------------------------------------- renderers


# A text cell a spreadsheet would run as a formula starts with one of these; it is written
# with a leading apostrophe. Numbers are never text here (they come as int, float or
# Decimal from the marts), so a negative number stays a number and reads back exactly.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _csv_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return "" if value is None else value


def to_csv(table: Table) -> str:
    """Raw fields, raw values: fractions at full precision, empty for null."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.fields)
    writer.writerows([[_csv_value(v) for v in row] for row in table.rows])
    return buffer.getvalue()


# Backslash-escaped in a Markdown cell: the escape itself, the cell separator, and the marks of
# code, emphasis and strike-through, which would otherwise hide or restyle characters of an id.
_MD_ESCAPED = str.maketrans({c: "\\" + c for c in "\\|`*_~"})


def _md_escape(value: str) -> str:
    """A Markdown table cell: HTML escaped (renderers pass raw HTML through, and '<' can then
    open no autolink), backslashes, pipes and inline marks escaped, no inline link or image
    ('](' escaped; brackets alone, as in an interval, stay as they are), whitespace runs
    (newlines included) folded to one space."""
    if not value:
        return value
    escaped = html.escape(value.translate(_MD_ESCAPED).replace("](", "\\]("), quote=False)
    return " ".join(escaped.split())


def to_markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table with the title and caption above it."""
    spec = table.spec
    suffix = spec.pivot is not None and spec.pivot.group_in_markdown
    headers = [f"{c.header} ({c.group.lower()})" if c.group and suffix else c.header for c in table.columns]
    lines = [f"**{spec.key}. {spec.title}.** {spec.caption}", ""]
    lines.append("| " + " | ".join(_md_escape(h) for h in headers) + " |")
    lines.append("| " + " | ".join("---:" if c.numeric else ":---" for c in table.columns) + " |")
    lines.extend("| " + " | ".join(_md_escape(v) for v in row) + " |" for row in table.cells())
    if not table.rows:
        lines.extend(["", "_No rows in this release._"])
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "|": r"\textbar{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    MINUS: "$-$",
    MISSING: "---",
    "×": r"$\times$",
    "†": r"$^{\dagger}$",
    "κ": r"$\kappa$",
    "α": r"$\alpha$",
    "τ": r"$\tau$",
    "≥": r"$\geq$",
    "\n": " ",
    "\r": " ",
}


def latex_escape(value: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in value)


def _spans(columns: Sequence[Column]) -> list[tuple[str | None, int, int]]:
    """Adjacent columns sharing a group: (group, first index, count)."""
    spans: list[tuple[str | None, int, int]] = []
    for i, column in enumerate(columns):
        if spans and spans[-1][0] == column.group and column.group is not None:
            group, first, n = spans[-1]
            spans[-1] = (group, first, n + 1)
        else:
            spans.append((column.group, i, 1))
    return spans


def to_latex(table: Table) -> str:
    """A booktabs table (needs \\usepackage{booktabs}; wide tables also graphicx)."""
    spec = table.spec
    columns = table.columns
    align = "".join("r" if c.numeric else "l" for c in columns)
    lines = [
        f"% {spec.key}. {spec.title} -- generated by `distressbench tables --format latex` from the marts.",
        r"\begin{table}[htbp]",
        r"\centering",
        r"\caption{" + latex_escape(f"{spec.title}. {spec.caption}") + "}",
        r"\label{tab:" + spec.stem.replace("_", "-") + "}",
    ]
    if spec.wide:
        lines.append(r"\resizebox{\textwidth}{!}{%")
    lines += [r"\begin{tabular}{" + align + "}", r"\toprule"]
    spans = _spans(columns)
    if any(group for group, _, _ in spans):
        cells, rules = [], []
        for group, first, n in spans:
            if group is None:
                cells.extend([""] * n)
                continue
            cells.append(r"\multicolumn{" + str(n) + "}{c}{" + latex_escape(group) + "}")
            rules.append(r"\cmidrule(lr){" + f"{first + 1}-{first + n}" + "}")
        lines += [" & ".join(cells) + r" \\", " ".join(rules)]

    def header(column: Column) -> str:
        body = column.latex_header if column.latex_header is not None else latex_escape(column.header)
        return r"\rotatebox{90}{" + body + "}" if spec.wide and column.group else body

    lines += [" & ".join(header(c) for c in columns) + r" \\", r"\midrule"]
    sections = table.sections()
    for r, row in enumerate(table.cells()):
        if r and sections[r] != sections[r - 1]:
            lines.append(r"\midrule")
        lines.append(" & ".join(latex_escape(v) for v in row) + r" \\")
    if not table.rows:
        lines.append(r"\multicolumn{" + str(len(columns)) + r"}{c}{\emph{No rows in this release.}} \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if spec.wide:
        lines.append("}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def html_id(spec: TableSpec) -> str:
    return f"table-{spec.key.lower()}"


def to_html(table: Table) -> str:
    """The table as HTML: its caption, then the <table> in a scrollable wrapper (the
    report's stylesheet styles both)."""
    spec = table.spec
    esc = html.escape
    ident = html_id(spec)
    out = [
        f'<div class="table-block"><p class="table-caption" id="{ident}-caption">'
        f"<strong>{esc(spec.key)}. {esc(spec.title)}.</strong> {esc(spec.caption)}</p>",
        f'<div class="table-wrap"><table id="{ident}" class="paper-table" aria-describedby="{ident}-caption">',
        "<thead>",
    ]
    spans = _spans(table.columns)
    if any(group for group, _, _ in spans):
        cells = "".join(
            f'<th colspan="{n}"></th>' if group is None else f'<th colspan="{n}" class="spanner">{esc(group)}</th>'
            for group, _, n in spans
        )
        out.append(f"<tr>{cells}</tr>")
    out.append(
        "<tr>"
        + "".join(
            f'<th class="{"num" if c.numeric else "txt"}" scope="col">{esc(c.header)}</th>' for c in table.columns
        )
        + "</tr>"
    )
    out.append("</thead><tbody>")
    sections = table.sections()
    groups = table.column_values("row_group") if "row_group" in table.fields else [""] * len(table.rows)
    for r, row in enumerate(table.cells()):
        classes = [f"row-{groups[r]}"] if groups[r] else []
        if r and sections[r] != sections[r - 1]:
            classes.append("block-start")
        attr = f' class="{" ".join(classes)}"' if classes else ""
        cells = "".join(
            f'<td class="{"num" if c.numeric else "txt"}">{esc(v)}</td>'
            for c, v in zip(table.columns, row, strict=False)
        )
        out.append(f"<tr{attr}>{cells}</tr>")
    if not table.rows:
        out.append(f'<tr><td colspan="{len(table.columns)}" class="empty">No rows in this release.</td></tr>')
    out.append("</tbody></table></div></div>")
    return "\n".join(out)


RENDERERS: dict[str, Callable[[Table], str]] = {"csv": to_csv, "md": to_markdown, "latex": to_latex}


def export_tables(warehouse: Path, *, fmt: str, out_dir: Path) -> list[Path]:
    """Write every paper table in one format (csv, md or latex) to out_dir; return the files."""
    if fmt not in RENDERERS:
        raise ValueError(f"unknown table format {fmt!r}: choose one of {', '.join(RENDERERS)}")
    with connect_read_only(warehouse) as connection:
        tables = load_tables(connection)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for table in tables:
        path = out_dir / f"{table.spec.stem}.{FORMATS[fmt]}"
        path.write_text(RENDERERS[fmt](table), encoding="utf-8")
        written.append(path)
    return written
