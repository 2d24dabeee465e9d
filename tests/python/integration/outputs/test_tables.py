"""The paper tables in every format, checked against the marts of the paper warehouse."""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import pytest

from distressbench import cli
from distressbench.outputs.report import write_report
from distressbench.outputs.tables.export import export_tables
from distressbench.outputs.tables.formatting import Wording
from distressbench.outputs.tables.specs import TABLES
from distressbench.settings import Settings
from fixtures.hostile_warehouse import DISPLAY_NAMES
from fixtures.markdown_table import read_markdown_table
from fixtures.wording import FLOOR_MARK, WORDING

HALF_STEP = 0.05 + 1e-9  # one displayed decimal of a percentage


# --------------------------------------------------------------------------- helpers


@pytest.fixture(scope="module")
def marts(hostile_warehouse: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect(str(hostile_warehouse), read_only=True)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def exported(hostile_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("tables")
    for fmt in ("csv", "md", "latex"):
        written = export_tables(hostile_warehouse, WORDING, fmt=fmt, out_dir=out / fmt)
        assert len(written) == len(TABLES) and all(p.exists() for p in written)
    return {fmt: out / fmt for fmt in ("csv", "md", "latex")}


def _csv(exported: dict[str, Path], stem: str) -> list[dict[str, str]]:
    with (exported["csv"] / f"{stem}.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _num(value: str) -> float | None:
    return None if value == "" else float(value)


def _rows(connection: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[Any, ...]]:
    return connection.execute(sql).fetchall()


def _latex_rows(path: Path) -> list[list[str]]:
    """Rows of the tabular between \\midrule (after the header) and \\bottomrule."""
    body = path.read_text(encoding="utf-8").split(r"\bottomrule")[0]
    lines = body.split("\n")
    start = min(i for i, line in enumerate(lines) if line.endswith(r"\\") and "\\midrule" in lines[i + 1])
    return [
        re.split(r"(?<!\\)&", line.removesuffix(r"\\").strip()) for line in lines[start + 1 :] if line.endswith(r"\\")
    ]


def _percent(cell: str) -> float:
    return float(cell.split(" ")[0].replace("−", "-"))


def _interval(cell: str) -> tuple[float, float]:
    low, high = re.fullmatch(r".*\[(\S+), (\S+)\]", cell).groups()  # type: ignore[union-attr]
    return float(low.replace("−", "-")), float(high.replace("−", "-"))


def _shown(cell: str, fraction: float) -> bool:
    return abs(_percent(cell) - 100 * fraction) <= HALF_STEP


# --------------------------------------------------------------------------- export


def test_every_caption_and_header_names_the_level_of_bootstrap_alpha(hostile_warehouse: Path, tmp_path: Path) -> None:
    """No level is written into the captions: with bootstrap_alpha 0.1 in the project's vars the
    tables and the report say 90%, never 95%."""
    project = Settings()
    wording = Wording.from_settings(replace(project, dbt_vars={**project.dbt_vars, "bootstrap_alpha": 0.1}))
    out = tmp_path / "out"
    for fmt in ("md", "latex"):
        export_tables(hostile_warehouse, wording, fmt=fmt, out_dir=out / fmt)
    write_report(hostile_warehouse, out / "report.html", wording)
    texts = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "out").rglob("*.*")}
    assert len(texts) == 2 * len(TABLES) + 1
    stale = [name for name, text in texts.items() if re.search(r"95\\?%", text)]
    assert stale == []
    assert "Score (%) [90% CI]" in texts["t2_leaderboard.md"]
    assert r"90\% CI" in texts["t2_leaderboard.tex"]
    assert "90% bootstrap intervals are in brackets" in texts["report.html"]


def test_unknown_format_is_refused(hostile_warehouse: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown table format"):
        export_tables(hostile_warehouse, WORDING, fmt="xlsx", out_dir=tmp_path)


def test_one_file_per_table_and_format(exported: dict[str, Path]) -> None:
    for fmt, ext in (("csv", "csv"), ("md", "md"), ("latex", "tex")):
        assert sorted(p.name for p in exported[fmt].iterdir()) == sorted(f"{s.stem}.{ext}" for s in TABLES)


@pytest.mark.parametrize("fmt", ["md", "csv"])
def test_out_dash_prints_every_table_and_a_folder_is_named(
    fmt: str, exported: dict[str, Path], hostile_warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tables --out -` prints the files' texts in table order, a blank line apart (CSV under a
    `# <file>` line); with a folder, each path on stdout and the folder on stderr."""
    files = [exported[fmt] / f"{spec.stem}.{fmt}" for spec in TABLES]
    want = "\n".join(("# " + f.name + "\n" if fmt == "csv" else "") + f.read_text(encoding="utf-8") for f in files)
    assert cli.main(["tables", "--format", fmt, "--out", "-", "--warehouse", str(hostile_warehouse)]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == (want, "")
    assert not (tmp_path / "-").exists()
    folder = tmp_path / "mine"
    assert cli.main(["tables", "--format", fmt, "--out", str(folder), "--warehouse", str(hostile_warehouse)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [str(folder / f.name) for f in files]
    assert err == f"tables: wrote {len(TABLES)} {fmt} files to {folder}{os.sep}\n"


# --------------------------------------------------------------------------- CSV round trip


def test_csv_t1_equals_corpus_stats(exported: dict[str, Path], marts: duckdb.DuckDBPyConnection) -> None:
    rows = _csv(exported, "t1_corpus_stats")
    got = {(r["section"], r["item"], r["statistic"]): _num(r["value"]) for r in rows}
    expected = {
        (s, i, t): v for s, i, t, v in _rows(marts, "select section, item, statistic, value from marts.corpus_stats")
    }
    assert len(rows) == len(expected)
    assert got == expected


def test_csv_t2_equals_model_scores(exported: dict[str, Path], marts: duckdb.DuckDBPyConnection) -> None:
    rows = _csv(exported, "t2_leaderboard")
    expected = _rows(
        marts,
        "select s.model_id, s.score, s.ci_low, s.ci_high, s.rank, s.rank_upper_bound, r.p_rank_1, s.letters "
        "from marts.model_scores s left join marts.model_rank_stats r using (model_id)",
    )
    numbers = ("score", "ci_low", "ci_high", "rank", "rank_upper_bound", "p_rank_1")
    got = {r["model_id"]: (*(_num(r[f]) for f in numbers), r["letters"] or None) for r in rows}
    assert got == {m: tuple(values) for m, *values in expected}
    assert all(r["letters"] for r in rows if r["row_group"] == "model")  # every ranked model has letters
    # ordered by score, the clinician reference last and unranked
    assert [r["row_group"] for r in rows] == ["model"] * (len(rows) - 1) + ["reference"]
    scores = [float(r["score"]) for r in rows[:-1]]
    assert scores == sorted(scores, reverse=True)


def test_dimension_kind_is_named_apart_from_model_kind(marts: duckdb.DuckDBPyConnection) -> None:
    """act/withhold is dimension_kind everywhere; kind always means model or clinician_reference."""
    for relation in ("marts.dimension_summary", "marts.dimension_scores", "reference.dimensions"):
        schema, table = relation.split(".")
        columns = {
            c
            for (c,) in _rows(
                marts,
                f"select column_name from duckdb_columns() where schema_name = '{schema}' and table_name = '{table}'",
            )
        }
        assert "dimension_kind" in columns, relation
        kinds = {k for (k,) in _rows(marts, f"select distinct kind from {relation}")} if "kind" in columns else set()
        assert kinds <= {"model", "clinician_reference"}, relation
    assert {k for (k,) in _rows(marts, "select distinct dimension_kind from marts.dimension_summary")} == {
        "act",
        "withhold",
    }


def test_csv_t3_equals_dimension_marts(exported: dict[str, Path], marts: duckdb.DuckDBPyConnection) -> None:
    rows = _csv(exported, "t3_dimension_scores")
    dimensions = [d for (d,) in _rows(marts, "select dimension_id from reference.dimensions order by display_order")]
    spread = [f"{d}{suffix}" for d in dimensions for suffix in ("", "_ci_low", "_ci_high")]
    assert list(rows[0].keys()) == ["release_id", "row_group", "model_id", "label", *spread]
    by_model = {r["model_id"]: r for r in rows if r["row_group"] in ("model", "reference")}
    expected = _rows(marts, "select model_id, dimension, score, ci_low, ci_high from marts.dimension_scores")
    assert len(by_model) == len({m for m, *_ in expected})
    for model, dimension, score, low, high in expected:
        row = by_model[model]
        assert (_num(row[dimension]), _num(row[f"{dimension}_ci_low"]), _num(row[f"{dimension}_ci_high"])) == (
            score,
            low,
            high,
        )
    best = next(r for r in rows if r["row_group"] == "best")
    median = next(r for r in rows if r["row_group"] == "median")
    for dimension, best_score, median_score in _rows(
        marts, "select dimension, best_score, median_score from marts.dimension_summary"
    ):
        assert _num(best[dimension]) == best_score
        assert _num(median[dimension]) == median_score


def test_csv_t4_t5_equal_their_marts(exported: dict[str, Path], marts: duckdb.DuckDBPyConnection) -> None:
    t4 = {
        (r["model_id"] or None): (int(r["n_recognized"]), int(r["n_not_routed"]), _num(r["rate"]))
        for r in _csv(exported, "t4_recognized_not_routed")
    }
    expected4 = _rows(marts, "select model_id, n_recognized, n_not_routed, rate from marts.recognized_not_routed")
    assert t4 == {m: (n, k, rate) for m, n, k, rate in expected4}
    t5 = _csv(exported, "t5_turn_type_scores")
    got5 = {}
    for r in t5:
        got5[(r["model_id"] or None, "single")] = _num(r["single_score"])
        got5[(r["model_id"] or None, "multi")] = _num(r["multi_score"])
    expected5 = {(m, t): s for m, t, s in _rows(marts, "select model_id, turn_type, score from marts.turn_type_scores")}
    assert got5 == expected5


def test_csv_t6_equals_subcategory_scores(exported: dict[str, Path], marts: duckdb.DuckDBPyConnection) -> None:
    rows = _csv(exported, "t6_subcategory_scores")
    seeds = _rows(marts, "select subcategory_id from reference.subcategories order by display_order")
    assert [r["subcategory"] for r in rows] == [s for (s,) in seeds]
    by_subcategory = {r["subcategory"]: r for r in rows}
    expected = _rows(
        marts, "select subcategory, model_id, is_pooled, n_tasks, score, ci_low, ci_high from marts.subcategory_scores"
    )
    assert expected
    for subcategory, model, pooled, n_tasks, score, low, high in expected:
        row = by_subcategory[subcategory]
        field, ends = ("pooled_score", "pooled_ci") if pooled else (f"score_{model}", f"score_{model}_ci")
        assert (_num(row[field]), _num(row[f"{ends}_low"]), _num(row[f"{ends}_high"])) == (score, low, high)
        assert int(row["n_tasks"]) == n_tasks
    present = {s for s, *_ in expected}
    assert all(r["pooled_score"] == "" for r in rows if r["subcategory"] not in present)


def test_csv_t7_a1_p_equal_their_marts(exported: dict[str, Path], marts: duckdb.DuckDBPyConnection) -> None:
    fields = ("n", "agreement", "kappa", "precision", "recall", "f1")
    t7 = {r["dimension"]: tuple(_num(r[f]) for f in fields) for r in _csv(exported, "t7_judge_calibration")}
    expected7 = _rows(marts, f"select dimension, {', '.join(fields)} from marts.judge_calibration")
    assert t7 == {d: tuple(None if v is None else float(v) for v in rest) for d, *rest in expected7}

    a1 = {
        r["transcript_id"]: (r["model_id"] or None, int(r["n_turns"]), int(r["n_characters"]))
        for r in _csv(exported, "a1_redteam_summary")
    }
    expected_a1 = _rows(marts, "select transcript_id, model_id, n_turns, n_characters from marts.redteam_summary")
    assert expected_a1 and a1 == {t: (m, n, c) for t, m, n, c in expected_a1}

    fields_p = ("value", "ci_low", "ci_high", "paper_value", "difference_from_paper")
    p_rows = _csv(exported, "p_paper_comparison")
    order = [m for (m,) in _rows(marts, "select metric from marts.headline_metrics order by display_order, metric")]
    assert [r["metric"] for r in p_rows] == order
    p = {r["metric"]: tuple(_num(r[f]) for f in fields_p) for r in p_rows}
    expected_p = _rows(marts, f"select metric, {', '.join(fields_p)} from marts.headline_metrics")
    assert p == {m: tuple(rest) for m, *rest in expected_p}


# --------------------------------------------------------------------------- Markdown and LaTeX


def test_markdown_t2_one_row_per_model_plus_reference(
    exported: dict[str, Path], marts: duckdb.DuckDBPyConnection
) -> None:
    header, body = read_markdown_table(exported["md"] / "t2_leaderboard.md")
    assert header == [
        "Rank",
        "Model",
        "Score (%) [95% CI]",
        "Letters",
        "Rank [95% CI]",
        "Rank bound",
        "P(rank 1) (%)",
        "Judges",
        "Unranked because",
    ]
    expected = _rows(
        marts,
        "select display_name, rank, score, ci_low, ci_high, kind, letters, rank_upper_bound, is_below_judge_floor "
        "from marts.model_scores order by kind = 'clinician_reference', score desc, model_id",
    )
    assert len(body) == len(expected) == len(DISPLAY_NAMES)
    for cells, (name, rank, score, low, high, kind, letters, bound, below) in zip(body, expected, strict=False):
        assert len(cells) == len(header)
        assert cells[1] == (f"{name} {FLOOR_MARK}" if below else name)  # escaped pipes read back
        assert cells[0] == ("—" if kind == "clinician_reference" else str(rank))
        assert (cells[3], cells[5]) == (("—", "—") if kind == "clinician_reference" else (letters, str(bound)))
        assert _shown(cells[2], score)
        shown_low, shown_high = _interval(cells[2])
        assert abs(shown_low - 100 * low) <= HALF_STEP and abs(shown_high - 100 * high) <= HALF_STEP
    assert body[-1][1] in ("Clinician reference", f"Clinician reference {FLOOR_MARK}") and body[-1][3] == "—"


def test_markdown_t3_seven_dimensions_and_summary_rows(
    exported: dict[str, Path], marts: duckdb.DuckDBPyConnection
) -> None:
    header, body = read_markdown_table(exported["md"] / "t3_dimension_scores.md")
    seeds = _rows(
        marts,
        "select d.label, d.dimension_kind, c.meets_calibration_floor from reference.dimensions as d "
        "inner join marts.judge_calibration as c on c.dimension = d.dimension_id order by d.display_order",
    )
    marks = ["" if meets else f" {FLOOR_MARK}" for _, _, meets in seeds]
    shown = [f"{label}{mark} ({kind})" for (label, kind, _), mark in zip(seeds, marks, strict=True)]
    assert header == ["Model", *shown]
    labels = [cells[0] for cells in body]
    n_models = len(DISPLAY_NAMES) - 1
    assert labels[n_models:] == ["Best", "Median", "Clinician reference"]
    assert all(len(cells) == 8 for cells in body)
    summary = _rows(marts, "select best_score, median_score from marts.dimension_summary order by display_order")
    for j, (best, median) in enumerate(summary, start=1):
        assert _shown(body[n_models][j], best)
        assert _shown(body[n_models + 1][j], median)


def test_markdown_t4_to_p_shapes(exported: dict[str, Path], marts: duckdb.DuckDBPyConnection) -> None:
    n_models = len(DISPLAY_NAMES)
    header, body = read_markdown_table(exported["md"] / "t4_recognized_not_routed.md")
    assert len(header) == 4 and len(body) == n_models + 1
    assert body[-2][0] == "All ranked models (pooled)" and body[-1][0] == "Clinician reference"
    (pooled,) = _rows(marts, "select rate from marts.recognized_not_routed where is_pooled")[0]
    assert _shown(body[-2][3], pooled)
    header, body = read_markdown_table(exported["md"] / "t5_turn_type_scores.md")
    assert header == ["Model", "Single-turn (%)", "Multi-turn (%)"] and len(body) == n_models + 1
    header, body = read_markdown_table(exported["md"] / "t6_subcategory_scores.md")
    assert len(body) == 23 and len(header) == 3 + n_models
    header, body = read_markdown_table(exported["md"] / "t7_judge_calibration.md")
    assert body[0][0] == "All criteria" and len(header) == 8
    header, body = read_markdown_table(exported["md"] / "p_paper_comparison.md")
    metrics = _rows(marts, "select metric, value, paper_value, difference_from_paper from marts.headline_metrics")
    assert len(body) == len(metrics)
    rows = {cells[0]: cells for cells in body}
    best = next(m for m in metrics if m[0] == "best_model_score")
    assert _shown(rows["Best model score"][1], best[1])
    assert _shown(rows["Best model score"][2], best[2])
    assert _shown(rows["Best model score"][3], best[3])
    assert rows["Best model score"][3][0] in "+−0"


def test_latex_tables_have_the_expected_rows_and_columns(exported: dict[str, Path]) -> None:
    n_models = len(DISPLAY_NAMES)
    expected = {
        "t2_leaderboard": (n_models, 9),
        "t3_dimension_scores": (n_models + 2, 8),
        "t4_recognized_not_routed": (n_models + 1, 4),
        "t6_subcategory_scores": (23, 3 + n_models),
        "t7_judge_calibration": (8, 8),
    }
    for stem, (n_rows, n_columns) in expected.items():
        text = (exported["latex"] / f"{stem}.tex").read_text(encoding="utf-8")
        assert text.count(r"\toprule") == text.count(r"\bottomrule") == 1
        assert re.search(r"\\begin\{tabular\}\{[lr]{" + str(n_columns) + r"}\}", text), stem
        rows = _latex_rows(exported["latex"] / f"{stem}.tex")
        assert len(rows) == n_rows, stem
        assert all(len(r) == n_columns for r in rows), stem


def test_latex_and_markdown_escape_display_names(exported: dict[str, Path]) -> None:
    latex = (exported["latex"] / "t2_leaderboard.tex").read_text(encoding="utf-8")
    assert r"Model A \textbar{} pipe \& co\_1 50\%" in latex
    assert r"\textless{}b\textgreater{}Model B\textless{}/b\textgreater{} " in latex
    assert r"Model C \$x\textasciicircum{}2\$ \{brace\} \textasciitilde{}\#" in latex
    assert r"Модель D \textbackslash{} back" in latex
    t3 = (exported["latex"] / "t3_dimension_scores.tex").read_text(encoding="utf-8")
    assert r"\multicolumn{6}{c}{Act} & \multicolumn{1}{c}{Withhold}" in t3
    markdown = (exported["md"] / "t2_leaderboard.md").read_text(encoding="utf-8")
    assert r"Model A \| pipe &amp; co\_1 50%" in markdown
    assert "&lt;b&gt;Model B&lt;/b&gt;" in markdown and "<b>" not in markdown
