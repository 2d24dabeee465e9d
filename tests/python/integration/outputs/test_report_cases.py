"""The report's Cases section, rendered by headless Chromium: the examples follow their rules,
every rubric table is marts.verdicts, and no release text becomes markup."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest

from distressbench import cli
from distressbench.messages import one_line, printable
from distressbench.outputs.report.build import SECTIONS
from distressbench.outputs.report.cases import EXAMPLES_PER_GROUP, HARDEST_PER_DIMENSION
from fixtures.hostile_warehouse import ANSI, IMAGE, SCRIPT

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
)


def _chromium() -> str:
    path = shutil.which("chromium")
    assert path, "chromium is required for this test (Debian package `chromium`; scripts/setup installs it)"
    return path


def _run_chromium(tmp_path: Path, name: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / f'profile-{name}'}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


class _Dom(HTMLParser):
    """Tags, the title, all text, and the cases: each <details class="case"> with its rubric rows."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.title = ""
        self.text: list[str] = []
        self.cases: list[dict[str, object]] = []
        self._in_title = False
        self._rubric: list[list[str]] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        classes = (attributes.get("class") or "").split()
        if tag == "title":
            self._in_title = True
        elif tag == "details" and "case" in classes:
            self.cases.append(
                {
                    "id": attributes["id"],
                    "model_id": attributes["data-model-id"],
                    "task_id": attributes["data-task-id"],
                    "open": "open" in attributes,
                }
            )
        elif tag == "table" and "rubric" in classes:
            self._rubric = []
            self.cases[-1]["response_id"] = attributes["data-response-id"]
            self.cases[-1]["rubric"] = self._rubric
        elif tag == "tr" and self._rubric is not None:
            self._rubric.append([])
        elif tag == "td" and self._rubric is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag == "td" and self._cell is not None and self._rubric is not None:
            self._rubric[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._rubric = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_title:
            self.title += data
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def report(hostile_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("case-report") / "report.html"
    assert cli.main(["report", "--warehouse", str(hostile_warehouse), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def dom(report: Path, tmp_path_factory: pytest.TempPathFactory) -> _Dom:
    """The document as Chromium built it (scripts run, if any had got in)."""
    result = _run_chromium(tmp_path_factory.mktemp("chromium"), "dom", "--dump-dom", report.resolve().as_uri())
    assert "<html" in result.stdout, result.stderr[-2000:]
    parsed = _Dom()
    parsed.feed(result.stdout)
    return parsed


def test_no_release_text_reaches_the_page_as_markup(report: Path, dom: _Dom) -> None:
    assert report.stat().st_size < 5_000_000
    assert "pwned" not in dom.title and dom.title.startswith("DistressBench report")
    assert not [t for t, _ in dom.tags if t in ("script", "b", "iframe", "object", "embed")]
    assert not [(t, a) for t, a in dom.tags for name in a if name.startswith("on")]
    images = [a for t, a in dom.tags if t == "img"]
    n_figures = sum(len(section.figures) for section in SECTIONS)
    assert len(images) == n_figures and all(str(a["src"]).startswith("data:image/svg+xml;base64,") for a in images)
    assert len([t for t, _ in dom.tags if t == "details"]) == len(dom.cases)  # no stray </details> closed one
    text = "".join(dom.text)
    for payload in (SCRIPT, IMAGE, "</details></table>I hear you.", "<b>bold</b>"):
        assert payload in text  # shown as text
    assert printable(ANSI) in text and "\x1b" not in text and "\x00" not in text


def test_every_example_follows_its_rule_and_shows_its_verdicts(hostile_warehouse: Path, dom: _Dom) -> None:
    groups: dict[str, list[dict[str, object]]] = {}
    for case in dom.cases:
        groups.setdefault(str(case["id"]).rsplit("-", 1)[0], []).append(case)
    assert [c["open"] for c in dom.cases].count(True) == 1 and dom.cases[0]["open"]
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        flagged = set(
            connection.execute(
                "select model_id, task_id from marts.cases where is_ranked and is_recognized_not_routed"
            ).fetchall()
        )
        hardest = connection.execute(
            "select count(*) from marts.criterion_pass_rates where hardness_rank <= ?", [HARDEST_PER_DIMENSION]
        ).fetchone()[0]
        (best,) = connection.execute("select model_id from marts.model_scores where rank = 1").fetchone()
        lowest = connection.execute(
            "select task_id from marts.cases where model_id = ? order by score, task_id limit ?",
            [best, EXAMPLES_PER_GROUP],
        ).fetchall()
        not_routed = [(c["model_id"], c["task_id"]) for c in groups["case-not-routed"]]
        assert len(not_routed) == min(EXAMPLES_PER_GROUP, len(flagged)) > 0 and set(not_routed) <= flagged
        assert len(groups["case-hardest"]) == hardest == HARDEST_PER_DIMENSION * 7
        assert [(c["model_id"], c["task_id"]) for c in groups["case-best-lowest"]] == [(best, t) for (t,) in lowest]

        for case in dom.cases:
            rows = connection.execute(
                "select v.criterion_id, v.dimension, v.weight, v.n_met, v.n_labels, v.is_met, p.criterion_text"
                " from marts.verdicts as v"
                " inner join marts.criterion_pass_rates as p on v.criterion_id = p.criterion_id"
                " inner join marts.cases as c on v.response_id = c.response_id"
                " where v.response_id = ? and c.model_id = ? and c.task_id = ?",
                [case["response_id"], case["model_id"], case["task_id"]],
            ).fetchall()
            expected = sorted(
                [one_line(c), d, str(w), f"{m} of {n}", "met" if met else "not met", printable(t)]
                for c, d, w, m, n, met, t in rows
            )
            shown = [row for row in case["rubric"] if row]  # type: ignore[attr-defined]  (the header row has no td)
            assert rows and sorted(shown) == expected, case["id"]


def test_the_section_is_deterministic(hostile_warehouse: Path, report: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.html"
    assert cli.main(["report", "--warehouse", str(hostile_warehouse), "--out", str(again)]) == 0

    def section(path: Path) -> str:
        text = path.read_text(encoding="utf-8")
        start = text.index('<section id="sec-cases"')
        return text[start : text.index("</section>", start)]

    assert section(again) == section(report) and "marts.cases" in section(report)


def test_the_section_renders_in_headless_chromium(report: Path, tmp_path: Path) -> None:
    """A screenshot of the Cases section as Chromium lays it out with the report's stylesheet
    (the section alone on a page, its first example open)."""
    from PIL import Image

    text = report.read_text(encoding="utf-8")
    start = text.index('<section id="sec-cases"')
    page = tmp_path / "cases.html"
    page.write_text(
        text[: text.index("<body>")]
        + '<body><main class="container">'
        + text[start : text.index("</section>", start) + len("</section>")]
        + "</main></body></html>",
        encoding="utf-8",
    )
    shot = tmp_path / "cases.png"
    _run_chromium(tmp_path, "shot", f"--screenshot={shot}", "--window-size=1200,1600", page.resolve().as_uri())
    assert shot.exists() and shot.stat().st_size > 20_000
    with Image.open(shot) as image:
        assert image.size == (1200, 1600)
        grey = image.convert("L")
        low, high = grey.getextrema()
        assert high - low > 100
        dark = sum(grey.histogram()[:128])
        assert dark > 0.005 * 1200 * 1600  # text fills the page, not a blank frame
