"""The report shows all it holds, on screen and on paper: in headless Chromium at 1400 px
every paper table fits its column or scrolls with its scroll bar shown, the page itself never
scrolls sideways, and every figure is shown at its own size (its labels at the size they
are drawn); printed to PDF, every column header of every table is on the page, under its
table's caption."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from distressbench import cli
from distressbench.outputs import figures

WIDTH = 1400
MEASURE = """<script>
window.addEventListener('load', () => {
  const rows = [['page', document.scrollingElement.scrollWidth, window.innerWidth, 0].join(' ')];
  document.querySelectorAll('.table-block').forEach((block) => {
    const wrap = block.querySelector('.table-wrap');
    const table = wrap.querySelector('table');
    rows.push([block.querySelector('.table-caption').id, wrap.clientWidth, table.scrollWidth,
               wrap.offsetHeight - wrap.clientHeight].join(' '));
  });
  document.querySelectorAll('figure img').forEach((img) => {
    rows.push([img.closest('figure').id, img.clientWidth, img.naturalWidth, 0].join(' '));
  });
  const out = document.createElement('pre');
  out.id = 'measured';
  out.textContent = rows.join('\\n');
  document.body.appendChild(out);
});
</script>"""


def _chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    chromium = shutil.which("chromium")
    assert chromium, "chromium is not installed: run scripts/setup --system-packages"
    command = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)


def _text(fragment: str) -> str:
    """The fragment's text without its white space (a PDF breaks lines, after a hyphen too)."""
    return "".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


@pytest.fixture(scope="module")
def report(hostile_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("layout") / "report.html"
    assert cli.main(["report", "--warehouse", str(hostile_warehouse), "--out", str(out)]) == 0
    return out


def test_at_1400_px_every_table_fits_or_scrolls_visibly_and_figures_keep_their_size(
    report: Path, tmp_path: Path
) -> None:
    measured = tmp_path / "measured.html"
    measured.write_text(report.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = _chromium(tmp_path / "profile", f"--window-size={WIDTH},1000", "--dump-dom", measured.as_uri()).stdout
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.DOTALL)
    assert found, dom[-2000:]
    rows = [line.rsplit(" ", 3) for line in found.group(1).splitlines()]
    (page, *items) = rows
    assert int(page[1]) <= int(page[2]), f"the page scrolls sideways: {page}"
    tables = [row for row in items if row[0].startswith("table-")]
    images = [row for row in items if not row[0].startswith("table-")]
    assert len(tables) == 15 and images
    hidden = [name for name, shown, full, scrollbar in tables if int(full) > int(shown) and int(scrollbar) <= 0]
    assert hidden == [], "wider than the page with no scroll bar shown"
    scaled = [name for name, shown, natural, _ in images if int(shown) < int(natural)]
    assert scaled == [], "a figure shown smaller than it is drawn"


def test_in_print_every_column_header_is_under_its_tables_caption(report: Path, tmp_path: Path) -> None:
    pdf = tmp_path / "report.pdf"
    _chromium(tmp_path / "profile", "--no-pdf-header-footer", f"--print-to-pdf={pdf}", report.as_uri())
    assert pdf.exists() and pdf.stat().st_size > 10_000
    assert shutil.which("pdftotext"), "pdftotext is not installed: run scripts/setup --system-packages"
    printed = "".join(
        subprocess.run(
            ["pdftotext", "-raw", str(pdf), "-"], capture_output=True, text=True, check=True, timeout=120
        ).stdout.split()
    )
    page = report.read_text(encoding="utf-8")
    blocks = re.findall(
        r'<div class="table-block"><p class="table-caption"[^>]*>(.*?)</p>.*?<thead>(.*?)</thead>', page, re.DOTALL
    )
    assert len(blocks) == 15
    starts: list[int] = []
    for caption, _ in blocks:
        start = printed.find(_text(caption), starts[-1] if starts else 0)
        assert start >= 0, f"caption not printed: {_text(caption)[:60]}"
        starts.append(start + len(_text(caption)))
    missing = [
        (_text(caption)[:30], _text(header))
        for (caption, head), start, end in zip(blocks, starts, [*starts[1:], len(printed)], strict=True)
        for header in re.findall(r"<th[^>]*>(.*?)</th>", head, re.DOTALL)
        if _text(header) and _text(header) not in printed[start:end]
    ]
    assert missing == []


def test_a_score_axis_fits_its_data_so_intervals_show() -> None:
    """Scores of 70-90%: the axis runs from 70 to 90 (and room for the labels), not 0-100."""
    fig, ax = plt.subplots()
    try:
        figures._fit_scores(ax, np.array([71.2, 88.4, np.nan, 69.8, 90.2]), label_room=0.5)
        assert ax.get_xlim() == (65.0, 95.0 + 0.5 * 30.0)
        assert list(ax.get_xticks()) == [65, 70, 75, 80, 85, 90, 95]
        figures._fit_scores(ax, np.array([2.0, 99.5]), label_room=0.0)
        assert ax.get_xlim() == (0.0, 100.0)
        assert list(ax.get_xticks()) == list(range(0, 101, 10))
    finally:
        plt.close(fig)
