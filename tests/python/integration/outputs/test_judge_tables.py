"""The judge-reliability tables (J1-J4), the floor marks in T3 and P, and the report's
"Judge reliability" section, against the marts of the paper warehouse."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from distressbench.outputs.report import write_report
from distressbench.outputs.tables.export import export_tables
from distressbench.outputs.tables.formatting import pct
from distressbench.outputs.tables.render import html_id
from distressbench.outputs.tables.specs import J1, J2, J3, J4
from fixtures.wording import FLOOR_MARK, WORDING


@pytest.fixture(scope="module")
def marts(hostile_warehouse: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect(str(hostile_warehouse), read_only=True)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def exported(hostile_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("judge-tables")
    for fmt in ("csv", "md", "latex"):
        export_tables(hostile_warehouse, WORDING, fmt=fmt, out_dir=out / fmt)
    return out


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _num(value: str) -> float | None:
    return None if value == "" else float(value)


def test_j1_csv_carries_the_calibration_and_agreement_marts(exported: Path, marts: duckdb.DuckDBPyConnection) -> None:
    rows = {r["dimension"]: r for r in _csv(exported / "csv" / "j1_judge_reliability.csv")}
    expected = marts.execute(
        "select c.dimension, c.n, c.kappa, c.kappa_ci_low, c.kappa_ci_high, c.meets_calibration_floor, "
        "a.krippendorff_alpha, a.tie_share from marts.judge_calibration as c "
        "inner join marts.judge_agreement as a on a.dimension = c.dimension"
    ).fetchall()
    assert len(rows) == len(expected) == 8
    for dimension, n, kappa, low, high, meets, alpha, ties in expected:
        row = rows[dimension]
        assert int(row["n"]) == n and row["meets_calibration_floor"] == ("true" if meets else "false")
        assert (_num(row["kappa"]), _num(row["kappa_ci_low"]), _num(row["kappa_ci_high"])) == (kappa, low, high)
        assert (_num(row["krippendorff_alpha"]), _num(row["tie_share"])) == (alpha, ties)


def test_j2_csv_carries_ranking_sensitivity(exported: Path, marts: duckdb.DuckDBPyConnection) -> None:
    rows = _csv(exported / "csv" / "j2_ranking_sensitivity.csv")
    expected = marts.execute(
        "select judge_id, sample_index, coverage, kendall_tau_b, n_rank_changes from marts.ranking_sensitivity "
        "order by judge_id, sample_index nulls first"
    ).fetchall()
    assert len(rows) == len(expected) >= 3
    for row, (judge, sample, coverage, tau, changes) in zip(rows, expected, strict=True):
        assert row["judge_id"] == judge and row["sample_index"] == ("" if sample is None else str(sample))
        assert _num(row["coverage"]) == coverage and _num(row["kendall_tau_b"]) == tau
        assert row["n_rank_changes"] == ("" if changes is None else str(changes))
    markdown = (exported / "md" / "j2_ranking_sensitivity.md").read_text(encoding="utf-8")
    assert "(all samples)" in markdown and ", sample 0" in markdown


def test_j3_csv_carries_the_pooled_and_per_judge_agreement(exported: Path, marts: duckdb.DuckDBPyConnection) -> None:
    rows = _csv(exported / "csv" / "j3_judge_agreement_by_judge.csv")
    query = "select n_pairs, krippendorff_alpha from marts.judge_agreement where dimension = 'all'"
    pooled = marts.execute(query).fetchall()
    judges = marts.execute(
        "select judge_id, n_pairs, krippendorff_alpha, alpha_ci_low, alpha_ci_high, primary_judge_reason "
        "from marts.judge_agreement_by_judge where dimension = 'all' order by judge_id"
    ).fetchall()
    assert len(rows) == 1 + len(judges) and len(judges) == 2
    assert rows[0]["judge_id"] == "" and (int(rows[0]["n_pairs"]), _num(rows[0]["krippendorff_alpha"])) == pooled[0]
    fields = ("krippendorff_alpha", "alpha_ci_low", "alpha_ci_high")
    for row, (judge, n_pairs, *alpha, reason) in zip(rows[1:], judges, strict=True):
        assert (row["judge_id"], int(row["n_pairs"]), *(_num(row[f]) for f in fields)) == (judge, n_pairs, *alpha)
        if alpha[0] is not None:  # every judge's alpha, where defined, has its interval
            assert alpha[1] is not None and alpha[1] <= alpha[0] <= alpha[2], (judge, alpha)
        assert (row["primary_judge_reason"] or None) == reason
    # exactly one judge is the headline's, and J3 says why
    assert [r["primary_judge_reason"] for r in rows if r["primary_judge_reason"]] == ["the most labels"]
    markdown = (exported / "md" / "j3_judge_agreement_by_judge.md").read_text(encoding="utf-8")
    assert "| the most labels |" in markdown


def test_dimensions_below_the_floor_are_marked_in_t3_p_and_j1(exported: Path, marts: duckdb.DuckDBPyConnection) -> None:
    below = [
        label
        for (label,) in marts.execute(
            "select d.label from reference.dimensions as d inner join marts.judge_calibration as c "
            "on c.dimension = d.dimension_id where not c.meets_calibration_floor"
        ).fetchall()
    ]
    above = [
        label
        for (label,) in marts.execute(
            "select d.label from reference.dimensions as d inner join marts.judge_calibration as c "
            "on c.dimension = d.dimension_id where c.meets_calibration_floor"
        ).fetchall()
    ]
    assert below, "the fixture's calibration covers one task: every dimension misses the floor"
    t3 = (exported / "md" / "t3_dimension_scores.md").read_text(encoding="utf-8")
    p = (exported / "md" / "p_paper_comparison.md").read_text(encoding="utf-8")
    for label in below:
        assert f"{label} {FLOOR_MARK} (" in t3 and f"{label} {FLOOR_MARK}, best model" in p
    for label in above:
        assert f"{label} {FLOOR_MARK}" not in t3
    latex = (exported / "latex" / "t3_dimension_scores.tex").read_text(encoding="utf-8")
    assert FLOOR_MARK not in latex and r"$^{\dagger}$" in latex
    j1 = (exported / "latex" / "j1_judge_reliability.tex").read_text(encoding="utf-8")
    assert "κ" not in j1 and "α" not in j1 and r"$\kappa$" in j1


def test_headline_holds_judge_kappa_and_alpha(marts: duckdb.DuckDBPyConnection) -> None:
    rows = {
        m: (v, lo, hi)
        for m, v, lo, hi in marts.execute(
            "select metric, value, ci_low, ci_high from marts.headline_metrics where metric like 'judge_%'"
        ).fetchall()
    }
    ((kappa, low, high),) = marts.execute(
        "select kappa, kappa_ci_low, kappa_ci_high from marts.judge_calibration where dimension = 'all'"
    ).fetchall()
    # the primary judge's alone (the fixture's two judges: the one with the most labels)
    ((judge, alpha),) = marts.execute(
        "select judge_id, krippendorff_alpha from marts.judge_agreement_by_judge "
        "where dimension = 'all' and is_primary_judge"
    ).fetchall()
    pooled_query = "select krippendorff_alpha from marts.judge_agreement where dimension = 'all'"
    ((pooled,),) = marts.execute(pooled_query).fetchall()
    assert alpha != pooled
    ((estimate, alpha_low, alpha_high),) = marts.execute(
        "select estimate, ci_low, ci_high from intermediate.int_bootstrap_resampled "
        "where statistic = 'judge_alpha' and judge_id = ?",
        [judge],
    ).fetchall()
    assert estimate == pytest.approx(alpha, abs=1e-12) and alpha_low is not None and alpha_high is not None
    assert rows == {"judge_kappa": (kappa, low, high), "judge_alpha": (alpha, alpha_low, alpha_high)}


def test_p_shows_judge_alpha_with_its_interval(exported: Path, marts: duckdb.DuckDBPyConnection) -> None:
    ((value, low, high),) = marts.execute(
        "select value, ci_low, ci_high from marts.headline_metrics where metric = 'judge_alpha'"
    ).fetchall()
    row = next(r for r in _csv(exported / "csv" / "p_paper_comparison.csv") if r["metric"] == "judge_alpha")
    assert (_num(row["value"]), _num(row["ci_low"]), _num(row["ci_high"])) == (value, low, high)
    markdown = (exported / "md" / "p_paper_comparison.md").read_text(encoding="utf-8")
    line = next(x for x in markdown.splitlines() if x.startswith("| Primary judge's self-consistency"))
    assert f"{pct(value)} [{pct(low)}, {pct(high)}]" in line


def test_j4_csv_carries_the_calibration_by_model_mart(exported: Path, marts: duckdb.DuckDBPyConnection) -> None:
    rows = _csv(exported / "csv" / "j4_judge_calibration_by_model.csv")
    columns = (
        "model_id",
        "dimension",
        "n",
        "kappa",
        "kappa_ci_low",
        "kappa_ci_high",
        "agreement",
        "precision",
        "recall",
        "f1",
        "f1_ci_high",
        "meets_calibration_floor",
    )
    expected = marts.execute(
        f"select {', '.join('c.' + c for c in columns)}, o.model_order from marts.judge_calibration_by_model as c "
        "inner join reporting.rpt_model_order as o on o.model_id = c.model_id "
        "order by o.model_order, c.display_order, c.dimension"
    ).fetchall()
    ((n_models,),) = marts.execute("select count(*) from staging.stg_release__models").fetchall()
    assert len(rows) == len(expected) == 8 * n_models
    for row, values in zip(rows, expected, strict=True):
        model, dimension, n, *numbers, meets, _ = values
        assert (row["model_id"], row["dimension"], int(row["n"])) == (model, dimension, n)
        assert [_num(row[c]) for c in columns[3:-1]] == numbers
        assert row["meets_calibration_floor"] == ("true" if meets else "false")
    assert {r["dimension"] for r in rows[::8]} == {"all"}
    markdown = (exported / "md" / "j4_judge_calibration_by_model.md").read_text(encoding="utf-8")
    body = [x for x in markdown.splitlines() if x.startswith("| ")][2:]
    # each model's name once, on its 'all' row; its dimensions' rows below it leave it blank
    assert len(body) == 8 * n_models and sum(x.startswith("|  | ") for x in body) == 7 * n_models
    latex = (exported / "latex" / "j4_judge_calibration_by_model.tex").read_text(encoding="utf-8")
    assert "κ" not in latex and r"$\kappa$" in latex


def test_report_has_the_judge_reliability_section(hostile_warehouse: Path, tmp_path: Path) -> None:
    text = write_report(hostile_warehouse, tmp_path / "report.html", WORDING).read_text(encoding="utf-8")
    section = text.split('<section id="sec-judge-reliability">', 1)[1].split("</section>", 1)[0]
    assert "<h2>Judge reliability</h2>" in section and 'id="fig-judge-reliability"' in section
    for spec in (J1, J2, J3):
        assert f'id="{html_id(spec)}"' in section, spec.key
    by_model = text.split('<section id="sec-calibration-by-model">', 1)[1].split("</section>", 1)[0]
    assert "<h2>Judge calibration by model</h2>" in by_model and f'id="{html_id(J4)}"' in by_model
    assert text.index('id="sec-calibration"') < text.index('id="sec-calibration-by-model"')
