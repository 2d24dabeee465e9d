"""The offline HTML report: self-contained, complete, and the same numbers as the tables."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest

from distressbench import cli
from distressbench.outputs.report.build import SECTIONS, release_info, render_header
from distressbench.outputs.tables.export import export_tables
from distressbench.outputs.tables.render import html_id
from distressbench.outputs.tables.specs import TABLES
from fixtures.markdown_table import read_markdown_table
from fixtures.wording import WORDING

FIGURE_IDS = [f.id for s in SECTIONS for f in s.figures]


class _Collect(HTMLParser):
    """Attributes of every tag, and the text of every table cell by table id."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.cells: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._in_body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "table":
            self._table = attributes.get("id")
            self.cells[str(self._table)] = []
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body and self._table:
            self.cells[self._table].append([])
        elif tag == "td" and self._in_body:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None and self._table:
            self.cells[self._table][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def report(hostile_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "nested" / "report.html"
    assert cli.main(["report", "--warehouse", str(hostile_warehouse), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def parsed(report: Path) -> _Collect:
    collector = _Collect()
    collector.feed(report.read_text(encoding="utf-8"))
    return collector


def test_report_fetches_nothing_from_the_network(report: Path, parsed: _Collect) -> None:
    text = report.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text
    assert "<script" not in text.lower() and "<link" not in text.lower() and "url(" not in text.lower()
    for tag, attributes in parsed.tags:
        for name in ("src", "href", "srcset", "action", "data"):
            value = attributes.get(name)
            if value is not None:
                assert value.startswith(("data:image/svg+xml;base64,", "#")), (tag, name, value[:60])


def test_report_holds_every_table_and_figure(parsed: _Collect) -> None:
    ids = [a.get("id") for _, a in parsed.tags if a.get("id")]
    assert len(ids) == len(set(ids))
    assert set(FIGURE_IDS) <= set(ids) and len(FIGURE_IDS) == 8
    assert {html_id(spec) for spec in TABLES} <= set(ids) and len(TABLES) == 15
    images = [a for tag, a in parsed.tags if tag == "img"]
    assert len(images) == 8
    for image in images:
        svg = base64.b64decode(str(image["src"]).split(",", 1)[1]).decode("utf-8")
        assert "<svg" in svg and "matplotlib" in svg.lower()
        assert not re.search(r"""(?:xlink:)?href=["']https?:""", svg)
        assert image.get("alt")
    for target in (a["href"] for tag, a in parsed.tags if tag == "a" and a.get("href")):
        assert str(target)[1:] in ids, target


def test_report_tables_show_the_exported_markdown_values(
    hostile_warehouse: Path, parsed: _Collect, tmp_path: Path
) -> None:
    for path in export_tables(hostile_warehouse, WORDING, fmt="md", out_dir=tmp_path):
        spec = next(s for s in TABLES if path.name == f"{s.stem}.md")
        _, markdown = read_markdown_table(path)
        assert parsed.cells[html_id(spec)] == markdown, spec.key


def test_report_header_names_release_and_build(report: Path, hostile_warehouse: Path) -> None:
    text = report.read_text(encoding="utf-8")
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        (published,) = connection.execute("select max(published_at) from meta.published_releases").fetchone()
    assert "<dt>Release</dt><dd>fixture-1</dd>" in text
    assert "<dt>Synthetic</dt><dd>yes</dd>" in text
    assert "<dt>Release created</dt><dd>2026-11-01" in text
    assert f"<dt>Warehouse built</dt><dd>{published} (published)</dd>" in text
    assert '<meta name="viewport"' in text and "max-width" in text
    assert "&lt;b&gt;Model B&lt;/b&gt;" in text and "<b>Model B" not in text


def test_release_info_falls_back_when_metadata_is_missing(hostile_warehouse: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.duckdb"
    shutil.copyfile(hostile_warehouse.resolve(), copy)
    with duckdb.connect(str(copy)) as connection:
        connection.execute("drop schema meta cascade")
        connection.execute(
            "create or replace table reporting.rpt_release as "
            "select 'another-release' as release_id, false as is_synthetic, '2020-01-01' as created_at"
        )
    with duckdb.connect(str(copy), read_only=True) as connection:
        info = release_info(connection, copy)
    assert info.release_id == "fixture-1"
    assert (info.synthetic, info.created_at) == ("unknown", "unknown")  # the manifest is another release's
    assert info.built_from == "file modified" and info.built_at.startswith("20")
    header = render_header(info, copy)
    assert "<dt>Synthetic</dt><dd>unknown</dd>" in header and "(warehouse file last modified)" in header
    assert "is unknown" in header
    with duckdb.connect(str(copy)) as connection:
        connection.execute("drop table reporting.rpt_release")
    with duckdb.connect(str(copy), read_only=True) as connection:
        assert release_info(connection, copy).synthetic == "unknown"


def test_report_renders_in_a_headless_browser(report: Path, tmp_path: Path) -> None:
    """Chromium is a Debian package that `scripts/setup --system-packages` installs (the README's
    test command and CI run it): a missing chromium fails here rather than skipping."""
    from PIL import Image

    assert shutil.which("chromium"), "chromium is not installed: run scripts/setup --system-packages"

    shot = tmp_path / "report.png"
    command = [
        str(shutil.which("chromium")),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={shot}",
        "--window-size=1366,900",
        report.resolve().as_uri(),
    ]
    subprocess.run(command, capture_output=True, timeout=90, check=False)
    assert shot.exists() and shot.stat().st_size > 10_000
    with Image.open(shot) as image:
        assert image.size == (1366, 900)
        low, high = image.convert("L").getextrema()
        assert high - low > 100  # text on a background, not a blank page
