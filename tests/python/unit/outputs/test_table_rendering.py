"""The paper tables' number formats and renderers, on hand-made tables: rounding, signs and
missing values, the empty table, and release text escaped in every format."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import replace

import pytest

from distressbench.outputs.tables.formatting import Wording, count, interval_level, pct, pp, ratio
from distressbench.outputs.tables.render import md_escape, to_csv, to_html, to_latex, to_markdown
from distressbench.outputs.tables.specs import A1, T2, TABLES
from distressbench.outputs.tables.table import Table
from distressbench.settings import Settings

# --------------------------------------------------------------------------- formatting


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.8885, "88.9"),
        (0.88849, "88.8"),
        (1.0, "100.0"),
        (0.0, "0.0"),
        (-0.00004, "0.0"),
        (-0.029, "−2.9"),
        (None, "—"),
    ],
)
def test_pct_rounds_half_up_from_the_shortest_decimal(value: float | None, expected: str) -> None:
    assert pct(value) == expected


def test_other_formats() -> None:
    assert pp(0.015) == "+1.5"
    assert pp(-0.0081) == "−0.8"
    assert pp(0.0) == "0.0"
    assert pp(None) == "—"
    assert ratio(0.8447) == "0.845"
    assert ratio(-0.1) == "−0.100"
    assert count(51732.0) == "51,732"
    assert count(15.96667) == "16.0"
    assert count(3) == "3"
    assert count(float("nan")) == "—"


def test_interval_level_is_one_minus_bootstrap_alpha() -> None:
    assert [interval_level(a) for a in (0.05, 0.1, 0.025, 0.01)] == ["95%", "90%", "97.5%", "99%"]


def test_the_tables_print_the_vars_of_the_settings_they_are_given() -> None:
    """The captions and headers name the dbt vars they print; the Settings a command reads fill
    them in, and every table is left with none unfilled."""
    project = Settings()
    assert Wording.from_settings(project).level == interval_level(project.var("bootstrap_alpha"))
    given = {"bootstrap_alpha": 0.1, "calibration_floor_mark": "‡", "calibration_kappa_floor": 0.7}
    wording = Wording.from_settings(replace(project, dbt_vars={**project.dbt_vars, **given}))
    assert (wording.level, wording.floor_mark, wording.kappa_floor) == ("90%", "‡", "0.7")
    assert wording.fill("{level} {floor_mark} {rank}") == "90% ‡ {rank}"
    t2 = T2.worded(wording)
    assert t2.columns[2].header == "Score (%) [90% CI]" and "‡ after a name" in t2.caption
    for spec in TABLES:
        worded = spec.worded(wording)
        texts = [worded.title, worded.caption, *(c.header for c in worded.columns)]
        assert not [t for t in texts if re.search(r"\{(level|floor_mark|kappa_floor|min_pairs)\}", t)], spec.key


# --------------------------------------------------------------------------- rendering


def test_empty_table_renders_in_every_format() -> None:
    empty = Table(A1, ("release_id", "transcript_id"), (), A1.columns)
    assert "No rows" in to_markdown(empty)
    assert "No rows" in to_latex(empty)
    assert "No rows" in to_html(empty)
    assert to_csv(empty) == "release_id,transcript_id\n"


# --------------------------------------------------------------------------- escaping release text


HOSTILE = (
    "<script>alert(1)</script> | x",
    '=HYPERLINK("http://example.org")',
    "+1",
    "-x",
    "@SUM(A1)",
    "\\ & % $ # _ { } ~ ^",
)


def _hostile_table() -> Table:
    """A leaderboard whose display names and judge ids are hostile text and whose numbers are negative."""
    spec = T2
    fields = (
        "release_id",
        "row_group",
        "model_id",
        "label",
        "provider",
        "kind",
        "n_tasks",
        "rank",
        "letters",
        "score",
        "ci_low",
        "ci_high",
        "median_rank",
        "rank_ci_low",
        "rank_ci_high",
        "rank_upper_bound",
        "p_rank_1",
        "judge_ids",
        "unranked_reason",
    )
    rows = tuple(
        ("rel", "model", f"m{i}", name, "p", "model", 4, i + 1, "ab", -0.125 - i, -1e-17, 0.5, 1.5, 1.0, 2.0, 1, 0.25)
        + (name, None)
        for i, name in enumerate(HOSTILE)
    )
    return Table(spec, fields, rows, spec.columns)


def test_markdown_escapes_html_and_pipes() -> None:
    text = to_markdown(_hostile_table())
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt; \\| x" in text
    assert "\\\\ &amp; % $" in text
    body = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert all(len(re.split(r"(?<!\\)\|", line)) == len(T2.columns) + 2 for line in body)


def test_markdown_shows_link_and_emphasis_marks_as_text() -> None:
    """A name may not become a link with a hidden target, an image, code or emphasis: the
    marks are escaped and the cell shows the name as it is; an interval's brackets stay."""
    name = "[Model E](http://example.org) ![x](y.png) *bold* _it_ `code` ~~gone~~"
    table = _hostile_table()
    table = Table(table.spec, table.fields, (table.rows[0][:3] + (name,) + table.rows[0][4:],), table.columns)
    text = to_markdown(table)
    escaped = r"[Model E\](http://example.org) ![x\](y.png) \*bold\* \_it\_ \`code\` \~\~gone\~\~"
    assert escaped in text
    assert re.search(r"(?<!\\)\]\(", text) is None and re.search(r"(?<!\\)[*_`~]", text.split("\n", 2)[2]) is None
    assert "[" in md_escape("[0.790, 0.811]") and "\\" not in md_escape("[0.790, 0.811]")


def test_csv_neutralises_formulas_and_keeps_numbers() -> None:
    table = _hostile_table()
    rows = list(csv.DictReader(io.StringIO(to_csv(table))))
    names = [r["label"] for r in rows]
    assert names[0] == HOSTILE[0]
    assert names[1:5] == ["'" + name for name in HOSTILE[1:5]]
    assert all(not name.startswith(("=", "+", "-", "@")) for name in names)
    assert [float(r["score"]) for r in rows] == table.column_values("score")  # negatives read back exactly
    assert [float(r["ci_low"]) for r in rows] == [-1e-17] * len(rows)
    assert [int(r["rank"]) for r in rows] == table.column_values("rank")


def test_latex_escapes_every_special_character() -> None:
    text = to_latex(_hostile_table())
    assert r"\textbackslash{} \& \% \$ \# \_ \{ \} \textasciitilde{} \textasciicircum{}" in text
    assert r"\textless{}script\textgreater{}alert(1)\textless{}/script\textgreater{} \textbar{} x" in text
    escapes = re.compile(
        r"\\(textbackslash|textasciitilde|textasciicircum|textless|textgreater|textbar)\{\}|\\[&%$#_{}]|\$-\$"
    )
    rows = text.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    assert len(rows) == len(HOSTILE)
    for row in rows:
        for cell in row.removesuffix(r" \\").split(" & "):
            assert not re.search(r"[&%$#_{}~^\\<>|]", escapes.sub("", cell)), cell


def test_html_escapes_release_text() -> None:
    text = to_html(_hostile_table())
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
