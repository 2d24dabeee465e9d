"""The tiers follow the folder alone (tests/python/conftest.py): a test under unit/ is marked
unit, any other integration, and a test under unit/ that asks for a fixture that starts a
process or builds a warehouse stops the collection, named."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

import conftest


@dataclass
class Item:
    """What conftest reads of a collected test."""

    path: Path
    fixturenames: tuple[str, ...] = ()
    markers: list[str] = field(default_factory=list)

    @property
    def nodeid(self) -> str:
        return f"{self.path.name}::test"

    def add_marker(self, mark: pytest.MarkDecorator) -> None:
        self.markers.append(mark.name)

    def get_closest_marker(self, name: str) -> str | None:
        return name if name in self.markers else None


def test_the_folder_alone_gives_the_tier() -> None:
    unit = Item(conftest.UNIT_FOLDER / "gate" / "test_x.py", ("tmp_path", "files_run"))
    integration = Item(conftest.UNIT_FOLDER.parent / "integration" / "gate" / "test_y.py", ("shared_gate",))
    top = Item(conftest.UNIT_FOLDER.parent / "test_lint.py")
    conftest.pytest_collection_modifyitems([unit, integration, top])  # type: ignore[list-item]
    assert (unit.markers, integration.markers, top.markers) == (["unit"], ["integration"], ["integration"])


@pytest.mark.parametrize("fixture", sorted(conftest.PROCESS_FIXTURES))
def test_a_unit_test_asking_for_a_process_fixture_stops_the_collection(fixture: str) -> None:
    misplaced = Item(conftest.UNIT_FOLDER / "test_z.py", ("tmp_path", fixture))
    with pytest.raises(pytest.UsageError, match=rf"1 tests under tests/python/unit .*test_z.py::test \({fixture}\)"):
        conftest.pytest_collection_modifyitems([misplaced])  # type: ignore[list-item]
