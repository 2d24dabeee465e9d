"""`distressbench report`: one self-contained HTML file with every paper table and figure.

The file needs no network: figures are matplotlib SVGs embedded as base64 data URIs, the
stylesheet is inline, there are no scripts. Tables come from `distressbench.outputs.tables` (the
same formatted values as `distressbench tables`), figures from `distressbench.outputs.figures`
(drawn from the same loaded tables), so every number matches the marts to the last
printed digit. A section may add a `body` rendered from the warehouse and a `heading` read
from it (the Changes section: `changes`; the Cases section: `cases`).
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from distressbench.outputs import figures
from distressbench.outputs.report.cases import cases_section
from distressbench.outputs.report.changes import changes_section, changes_title
from distressbench.outputs.report.leaderboard import leaderboard_notes
from distressbench.outputs.tables.formatting import Wording
from distressbench.outputs.tables.load import load_tables
from distressbench.outputs.tables.render import html_id, to_html
from distressbench.outputs.tables.table import Table
from distressbench.outputs.warehouse import connect_read_only

UNKNOWN = "unknown"


@dataclass(frozen=True)
class ReleaseInfo:
    release_id: str
    synthetic: str  # 'yes', 'no' or 'unknown'
    created_at: str
    built_at: str
    built_from: str  # where built_at comes from


@dataclass(frozen=True)
class FigureSpec:
    id: str
    table: str  # the key of the table it draws
    draw: Callable[[Table, Wording], bytes]
    caption: str


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    intro: str
    figures: tuple[FigureSpec, ...]
    tables: tuple[str, ...]
    body: Callable[[duckdb.DuckDBPyConnection, Wording], str] | None = None  # more content, read from the marts
    heading: Callable[[duckdb.DuckDBPyConnection], str] | None = None  # a title naming what the marts hold


def _judge_reliability() -> Section:
    """How far the judge's verdicts can be trusted: against the clinicians (kappa with its
    interval, against the calibration floor), against itself (alpha), and how much the
    leaderboard moves when only one judge or one sample decides."""
    return Section(
        "judge-reliability",
        "Judge reliability",
        "Every score rests on the LLM judge. A dimension whose judge misses the calibration floor is marked "
        "{floor_mark} wherever its scores appear (tables T3 and P and their figures). The headline judge α is "
        "the primary judge's alone; table J3 names it and the rule that chose it.",
        (
            FigureSpec(
                "fig-judge-reliability",
                "J1",
                figures.judge_reliability,
                "Cohen's κ of the judge against the clinicians' majority label per dimension, with its "
                "{level} bootstrap interval, against the calibration floor (dashed; red hollow points "
                "miss it), and Krippendorff's α of the judge's own labels.",
            ),
        ),
        ("J1", "J3", "J2"),
    )


SECTIONS: tuple[Section, ...] = (
    Section(
        "paper",
        "Headline metrics and the paper",
        "The paper's headline numbers recomputed on this release, beside the values the paper reports.",
        (),
        ("P",),
    ),
    Section(
        "leaderboard",
        "Leaderboard",
        "Models ranked by score. Two models share a letter when they cannot be told apart once every pair of "
        "models is allowed for: their simultaneous (family-wise) {level} bootstrap interval includes 0; "
        "they share none when it excludes 0. The rank bound is the best rank that cannot be ruled out: 1 + the "
        "number of models clearly better at that family-wise level. It can differ from the rank interval, which "
        "says where the model's own rank falls across the resamples, one model at a time and not adjusted for "
        "the others: a different question.",
        (
            FigureSpec(
                "fig-leaderboard",
                "T2",
                figures.leaderboard,
                "Model score with its {level} bootstrap interval and each model's letters; the clinician "
                "reference (red diamond) and any model judged otherwise are shown apart, not ranked.",
            ),
        ),
        ("T2",),
        body=leaderboard_notes,
    ),
    Section(
        "dimensions",
        "Dimensions",
        "How each model does on each of the seven rubric dimensions: six ask the reply to act, one to withhold. "
        "The table gives each score its {level} task-bootstrap interval.",
        (
            FigureSpec(
                "fig-dimension-heatmap",
                "T3",
                figures.dimension_heatmap,
                "Dimension score (%) of every model; the clinician reference in the last row.",
            ),
            FigureSpec(
                "fig-best-median",
                "T3",
                figures.best_vs_median,
                "Best and median ranked model per dimension, the act dimensions apart from the withhold one.",
            ),
        ),
        ("T3",),
    ),
    Section(
        "routing",
        "Recognized but not routed",
        "Replies that recognise the crisis but do not connect the person to human help.",
        (
            FigureSpec(
                "fig-recognized-not-routed",
                "T4",
                figures.recognized_not_routed,
                "Recognized replies per model (light) and those of them not routed (red), with the rate.",
            ),
        ),
        ("T4",),
    ),
    Section(
        "turns",
        "Single-turn and multi-turn conversations",
        "",
        (
            FigureSpec(
                "fig-turn-types",
                "T5",
                figures.turn_types,
                "Mean cell score on single-turn (circle) and multi-turn (square) conversations.",
            ),
        ),
        ("T5",),
    ),
    Section(
        "subcategories",
        "Subcategories",
        "The 23 crisis situations of the corpus. The table gives each score its {level} task-bootstrap "
        "interval: a gap between two subcategories means little when their intervals overlap widely.",
        (
            FigureSpec(
                "fig-subcategory-heatmap",
                "T6",
                figures.subcategory_heatmap,
                "Mean cell score (%) per subcategory: pooled over ranked models (first column), then per model.",
            ),
        ),
        ("T6",),
    ),
    Section(
        "calibration",
        "Judge calibration",
        "How often the LLM judge agrees with the clinicians' majority label.",
        (
            FigureSpec(
                "fig-calibration",
                "T7",
                figures.calibration,
                "Agreement, precision, recall and F1 (%) and Cohen's κ of the judge per dimension.",
            ),
        ),
        ("T7",),
    ),
    Section(
        "calibration-by-model",
        "Judge calibration by model",
        "The judge against the clinicians on each model's replies: a judge more lenient with one model than with "
        "another moves that model's rank, so a model whose judge misses the floor has a score resting on a judge "
        "not shown to be trustworthy for it.",
        (),
        ("J4",),
    ),
    Section(
        "anchored",
        "Scores anchored to the clinicians",
        "The judge is lenient: it calls met what the clinicians call unmet more often than the reverse, so its "
        "scores sit above what the clinicians would give. Anchored scores add the clinicians' correction, measured "
        "on the calibrated pairs, to the judge's score; their intervals are wider, since the correction rests on "
        "the few pairs the clinicians labelled. The leaderboard and the paper's headline stay the judge's.",
        (),
        ("A2", "A3"),
    ),
    Section("changes", "Changes since the previous release", "", (), (), body=changes_section, heading=changes_title),
    _judge_reliability(),
    Section("cases", "Cases", "", (), (), body=cases_section),
    Section("corpus", "Corpus", "", (), ("T1",)),
    Section("annex", "Red-team annex", "", (), ("A1",)),
)

CSS = """
:root { color-scheme: light; --ink: #1d2733; --muted: #5b6673; --rule: #d6dce3; --band: #f3f6f9; --accent: #2f6690; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--ink); background: #fff; }
/* wide enough for the widest paper tables but one (T6 scrolls); prose keeps a readable measure */
.container { max-width: 1400px; margin: 0 auto; padding: 24px 20px 48px; }
p, figcaption, .table-caption, .notice, .meta { max-width: 70rem; }
header h1 { margin: 0 0 4px; font-size: 1.7rem; }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 12px 0; font-size: 0.95rem; }
.meta dt { color: var(--muted); }
.meta dd { margin: 0; font-variant-numeric: tabular-nums; }
.notice { border-left: 4px solid #c0504d; background: #fbf1f0; padding: 8px 12px; margin: 12px 0; }
nav ol { columns: 2; margin: 8px 0 0; padding-left: 20px; }
nav a, a { color: var(--accent); }
section { margin-top: 40px; border-top: 1px solid var(--rule); padding-top: 8px; }
h2 { font-size: 1.3rem; margin: 12px 0 6px; }
figure { margin: 20px 0; }
/* a figure at its own size (drawn at most 960 px wide), so its labels keep theirs */
figure img { display: block; width: auto; max-width: 100%; height: auto; margin: 0 auto; }
figcaption, .table-caption { color: var(--muted); font-size: 0.88rem; text-align: left; }
figcaption { margin-top: 6px; }
figcaption strong, .table-caption strong { color: var(--ink); }
.table-block { margin: 24px 0; }
.table-caption { margin: 0 0 8px; }
/* a table wider than the page scrolls, its scroll bar always shown; in print it is laid out whole */
.table-wrap { overflow-x: auto; scrollbar-width: auto; scrollbar-color: var(--muted) var(--band); }
.table-wrap::-webkit-scrollbar { height: 12px; }
.table-wrap::-webkit-scrollbar-thumb { background: var(--muted); border-radius: 6px; }
.table-wrap::-webkit-scrollbar-track { background: var(--band); }
table.paper-table { border-collapse: collapse; font-size: 0.88rem; font-variant-numeric: tabular-nums; width: 100%; }
table.paper-table th, table.paper-table td { padding: 4px 8px; border-bottom: 1px solid #edf0f3; vertical-align: top; }
table.paper-table thead th { border-bottom: 2px solid var(--ink); font-weight: 600; }
table.paper-table th.spanner { border-bottom: 1px solid var(--ink); text-align: center; }
table.paper-table .num { text-align: right; }
table.paper-table .txt { text-align: left; }
table.paper-table td { white-space: nowrap; }
table.paper-table thead th { vertical-align: bottom; overflow-wrap: normal; hyphens: manual; }
table.paper-table tr.block-start td { border-top: 2px solid var(--rule); }
table.paper-table tr.row-best td, table.paper-table tr.row-median td, table.paper-table tr.row-pooled td,
table.paper-table tr.row-all td { background: var(--band); font-weight: 600; }
table.paper-table tr.row-reference td { font-style: italic; }
table.paper-table td.empty { text-align: center; color: var(--muted); }
details.case { border: 1px solid var(--rule); border-radius: 4px; margin: 8px 0; padding: 4px 10px; }
details.case summary { cursor: pointer; }
details.case h4 { margin: 12px 0 4px; font-size: 0.95rem; }
.case-text { white-space: pre-wrap; overflow-wrap: anywhere; }
table.paper-table.rubric td.case-text { white-space: pre-wrap; }
table.paper-table.rubric tr.unmet td { color: #8a2f2b; }
table.paper-table.rubric tr.focus td { background: var(--band); font-weight: 600; }
ol.turns { padding-left: 20px; margin: 0; }
ol.turns .role { color: var(--muted); font-size: 0.85rem; }
footer { margin-top: 40px; color: var(--muted); font-size: 0.85rem; }
@media (max-width: 700px) { nav ol { columns: 1; } body { font-size: 14px; } }
@media print {
  @page { size: A4 landscape; margin: 10mm; }
  body { font-size: 10pt; }
  .container { max-width: none; padding: 0; }
  .table-wrap { overflow: visible; }
  table.paper-table { font-size: 6.5pt; width: auto; }
  table.paper-table th, table.paper-table td { padding: 1px 3px; white-space: normal; }
  figure, .table-block { break-inside: avoid; }
}
"""


def _relation_exists(connection: duckdb.DuckDBPyConnection, schema: str, name: str) -> bool:
    (found,) = connection.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?", [schema, name]
    ).fetchone()
    return bool(found)


def release_info(connection: duckdb.DuckDBPyConnection, warehouse: Path) -> ReleaseInfo:
    """Which release the marts hold, whether it is synthetic, and when the warehouse was built."""
    ids = [row[0] for row in connection.execute("select distinct release_id from marts.headline_metrics").fetchall()]
    if len(ids) != 1:
        raise ValueError(f"marts.headline_metrics holds {len(ids)} release ids, expected 1: {ids[:3]}")
    release_id = str(ids[0])
    synthetic, created_at = UNKNOWN, UNKNOWN
    if _relation_exists(connection, "reporting", "rpt_release"):  # the manifest, copied at build time
        rows = connection.execute("select release_id, is_synthetic, created_at from reporting.rpt_release").fetchall()
        if len(rows) == 1 and rows[0][0] == release_id:
            synthetic = UNKNOWN if rows[0][1] is None else ("yes" if rows[0][1] else "no")
            created_at = UNKNOWN if rows[0][2] is None else str(rows[0][2])
    built_at, built_from = "", ""
    if _relation_exists(connection, "meta", "published_releases"):
        (latest,) = connection.execute("select max(published_at) from meta.published_releases").fetchone()
        if latest is not None:
            built_at, built_from = str(latest), "published"
    if not built_at:
        mtime = datetime.fromtimestamp(warehouse.resolve().stat().st_mtime, UTC)
        built_at, built_from = mtime.isoformat(timespec="seconds"), "file modified"
    return ReleaseInfo(release_id, synthetic, created_at, built_at, built_from)


def _data_uri(svg: bytes) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def render_header(info: ReleaseInfo, warehouse: Path) -> str:
    """The report's header: release, synthetic or not, when created and built."""
    esc = html.escape
    built = f"{info.built_at} ({'published' if info.built_from == 'published' else 'warehouse file last modified'})"
    rows = (
        ("Release", info.release_id),
        ("Synthetic", info.synthetic),
        ("Release created", info.created_at),
        ("Warehouse built", built),
        ("Warehouse", warehouse.name),
    )
    meta = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in rows)
    notice = ""
    if info.synthetic == "yes":
        notice = (
            '<p class="notice">This release is synthetic: a generated stand-in for the corpus. '
            "Its numbers exercise the pipeline and say nothing about any real model.</p>"
        )
    elif info.synthetic == UNKNOWN:
        notice = '<p class="notice">Whether this release is synthetic is unknown (its manifest is not readable).</p>'
    return f'<header><h1>DistressBench report</h1><dl class="meta">{meta}</dl>{notice}</header>'


def release_notes(connection: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """table key -> what the release lacks that leaves that table undefined or empty
    (reporting.rpt_release_notes, in its order); empty for a warehouse built without it."""
    if not _relation_exists(connection, "reporting", "rpt_release_notes"):
        return {}
    notes: dict[str, list[str]] = {}
    for key, note in connection.execute(
        "select table_key, note from reporting.rpt_release_notes order by row_order"
    ).fetchall():
        notes.setdefault(str(key), []).append(str(note))
    return notes


def _table_block(table: Table, notes: list[str]) -> str:
    """A table with the notes on what the release lacks for it; a table left without rows
    by what a note says shows the note alone."""
    shown = "".join(f'<p class="notice">{html.escape(note)}</p>' for note in notes)
    return shown if notes and not table.rows else shown + to_html(table)


def render_report(
    tables: list[Table],
    info: ReleaseInfo,
    warehouse: Path,
    wording: Wording,
    bodies: dict[str, str] | None = None,
    headings: dict[str, str] | None = None,
    notes: dict[str, list[str]] | None = None,
) -> str:
    """The whole HTML document; `wording` fills in the dbt vars the sections' words name, `bodies`
    and `headings` hold the rendered `body` and `heading` of the sections that have one, `notes`
    what the release lacks per table (release_notes)."""
    esc = html.escape
    by_key = {t.spec.key: t for t in tables}
    titles = {s.id: (headings or {}).get(s.id, s.title) for s in SECTIONS}
    body: list[str] = [render_header(info, warehouse)]
    toc = "".join(f'<li><a href="#sec-{s.id}">{esc(titles[s.id])}</a></li>' for s in SECTIONS)
    body.append(f'<nav aria-label="Contents"><strong>Contents</strong><ol>{toc}</ol></nav>')
    figure_number = 0
    for section in SECTIONS:
        parts = [f'<section id="sec-{section.id}"><h2>{esc(titles[section.id])}</h2>']
        if section.intro:
            parts.append(f"<p>{esc(wording.fill(section.intro))}</p>")
        for spec in section.figures:
            figure_number += 1
            uri = _data_uri(spec.draw(by_key[spec.table], wording))
            caption = wording.fill(spec.caption)
            alt = f"Figure {figure_number}: {caption}"
            parts.append(
                f'<figure id="{spec.id}"><img src="{uri}" alt="{esc(alt)}">'
                f"<figcaption><strong>Figure {figure_number}.</strong> {esc(caption)} "
                f'Data: <a href="#{html_id(by_key[spec.table].spec)}">table {esc(spec.table)}</a>.'
                "</figcaption></figure>"
            )
        for key in section.tables:
            parts.append(_table_block(by_key[key], (notes or {}).get(key, [])))
        parts.append((bodies or {}).get(section.id, ""))
        parts.append("</section>")
        body.append("".join(parts))
    body.append(
        "<footer>Built by <code>distressbench report</code> from the warehouse's marts. Percentages have one "
        f"decimal; {wording.level} bootstrap intervals are in brackets; the clinician reference is reported beside "
        "the models, never ranked. <code>distressbench tables --format csv</code> gives the raw fractions.</footer>"
    )
    title = f"DistressBench report — {info.release_id}"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n"
        f'<body>\n<main class="container">\n' + "\n".join(body) + "\n</main>\n</body>\n</html>\n"
    )


def write_report(warehouse: Path, out: Path, wording: Wording) -> Path:
    """Write the offline HTML report of the published warehouse to `out`, with the dbt vars
    its words name from `wording`; return its path."""
    with connect_read_only(warehouse) as connection:
        tables = load_tables(connection, wording)
        info = release_info(connection, warehouse)
        bodies = {s.id: s.body(connection, wording) for s in SECTIONS if s.body is not None}
        headings = {s.id: s.heading(connection) for s in SECTIONS if s.heading is not None}
        notes = release_notes(connection)
    document = render_report(tables, info, warehouse, wording, bodies, headings, notes)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(document, encoding="utf-8")
    partial.replace(out)
    return out
