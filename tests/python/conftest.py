"""Shared fixtures: a small valid release built by hand (see release_factory)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from release_factory import make_release  # noqa: E402


@pytest.fixture
def good_release(tmp_path: Path) -> Path:
    """A fresh copy of the valid fixture release, safe to break."""
    return make_release(tmp_path / "release")
