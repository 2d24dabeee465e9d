"""One small published warehouse for the table and report tests, built once per session.

The release is the hand-made fixture (release_factory: ids with quotes, semicolons and
Unicode, 4 ranked models + the clinician reference, an empty reply, a red-team annex), with
display names that need escaping in Markdown, LaTeX and HTML.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from distressbench.build.pipeline import build_release  # noqa: E402
from release_factory import make_release, read_table, rewrite_table  # noqa: E402

DISPLAY_NAMES: tuple[str, ...] = (
    "Model A | pipe & co_1 50%",
    '<b>Model B</b> "quoted"',
    "Model C $x^2$ {brace} ~#",
    "Модель D \\ back",
    "Clinician reference",
)

_BUILT: dict[str, Path] = {}


def _build(root: Path) -> Path:
    release = make_release(root / "release")
    models = read_table(release, "models")
    index = models.schema.get_field_index("display_name")
    rewrite_table(release, "models", models.set_column(index, "display_name", pa.array(DISPLAY_NAMES, pa.string())))
    warehouse = root / "warehouse.duckdb"
    build_release(release, warehouse)
    return warehouse


@pytest.fixture(scope="session")
def paper_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The published warehouse (a symlink to the build file); built on first use only."""
    if "warehouse" not in _BUILT:
        _BUILT["warehouse"] = _build(tmp_path_factory.mktemp("paper-warehouse"))
    return _BUILT["warehouse"]
