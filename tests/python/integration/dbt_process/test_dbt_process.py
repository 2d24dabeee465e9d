"""The build as a process: a stopped build leaves nothing running, an unwritable warehouse
folder is refused at once, any path works, and dbt in a new folder parses partially."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from distressbench import cli
from distressbench.dbt.process import PID_FILE, end_leftover
from distressbench.dbt.relations import JUDGE_LABELS_AGGREGATE, staging_models
from distressbench.publish.layout import WORK_FOLDER, WarehouseLayout
from distressbench.release import contract
from fixtures.processes import alive, dbt_on, wait_for
from fixtures.releases.hand_built import make_release

CLI = [sys.executable, "-m", "distressbench.cli"]


def _published_release(warehouse: Path) -> str:
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        (release_id,) = connection.execute("select release_id from marts.headline_metrics limit 1").fetchone()
    return str(release_id)


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("process")
    make_release(root / "a", release_id="fixture-a")
    make_release(root / "b", release_id="fixture-b")
    return root


def test_a_gate_writes_nothing_into_the_environment(releases: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = dict(os.environ)
    assert cli.main(["gate", str(releases / "a")]) == 0
    assert dict(os.environ) == before


def test_an_unwritable_warehouse_folder_is_refused_before_any_stage(
    releases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """chattr +i stops root too (permission bits do not): the check tries to create a file."""
    folder = tmp_path / "immutable"
    folder.mkdir()
    subprocess.run(["chattr", "+i", str(folder)], check=True)
    try:
        code = cli.main(["build", str(releases / "a"), "--warehouse", str(folder / "w.duckdb")])
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    out, err = capsys.readouterr()
    assert code == 2
    assert err == f"build: cannot write in {folder}, where the publish must write; nothing was built\n"
    assert "[prepare]" not in out and list(folder.iterdir()) == []


@pytest.fixture
def warehouse(releases: Path, tmp_path: Path) -> Iterator[Path]:
    """A warehouse with fixture-a published."""
    path = tmp_path / "w.duckdb"
    built = subprocess.run([*CLI, "build", str(releases / "a"), "--warehouse", str(path)], capture_output=True)
    assert built.returncode == 0, built.stderr.decode()[-2000:]
    yield path


def _start_build(release: Path, warehouse: Path, output: Path) -> tuple[subprocess.Popen[bytes], int]:
    """A build of `release` into `warehouse`, once its dbt process runs: (the CLI, dbt's pid)."""
    pid_file = WarehouseLayout(warehouse).builds_dir / WORK_FOLDER / "dbt" / PID_FILE
    with output.open("wb") as sink:
        build = subprocess.Popen(
            [*CLI, "build", str(release), "--warehouse", str(warehouse)], stdout=sink, stderr=subprocess.STDOUT
        )
    wait_for(lambda: "[dbt build] ..." in output.read_text() and pid_file.exists(), "the dbt build stage")
    assert build.poll() is None, "the build finished before it could be stopped"
    return build, int(pid_file.read_text())


def test_sigterm_stops_a_build_like_ctrl_c_and_ends_dbt(
    releases: Path, warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build, dbt = _start_build(releases / "b", warehouse, tmp_path / "out")
    build.send_signal(signal.SIGTERM)
    assert build.wait(timeout=60) == 128 + signal.SIGTERM
    printed = (tmp_path / "out").read_text().splitlines()
    assert printed[-1] == "build: terminated (SIGTERM); every process it started has ended"
    assert not alive(dbt)
    assert _published_release(warehouse) == "fixture-a"
    assert cli.main(["build", str(releases / "b"), "--warehouse", str(warehouse)]) == 0
    assert _published_release(warehouse) == "fixture-b"


def test_dbt_ends_with_a_build_killed_outright_and_the_next_build_publishes(
    releases: Path, warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build, dbt = _start_build(releases / "b", warehouse, tmp_path / "out")
    build.kill()
    build.wait()
    wait_for(lambda: not alive(dbt), "dbt to end with its parent", timeout=10)
    assert cli.main(["build", str(releases / "b"), "--warehouse", str(warehouse)]) == 0
    assert _published_release(warehouse) == "fixture-b"


def test_a_later_build_ends_a_dbt_process_left_in_its_work_folder(tmp_path: Path) -> None:
    """end_leftover ends a process whose command is dbt's (as a build killed before the
    kernel could end its child would leave) and leaves any other pid alone."""
    sleeper = [sys.executable, "-c", "import time; time.sleep(120)", "distressbench.dbt.process"]
    leftover = subprocess.Popen(sleeper)
    other = subprocess.Popen(["sleep", "120"])
    try:
        for process, folder in ((leftover, tmp_path / "ours"), (other, tmp_path / "other")):
            folder.mkdir()
            (folder / PID_FILE).write_text(str(process.pid))
            end_leftover(folder)
        assert leftover.wait(timeout=30) == -signal.SIGTERM
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_paths_with_quotes_brackets_and_braces_build_and_publish(
    releases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = make_release(tmp_path / "Bob's results [v2] {x} *" / "release", release_id="fixture-odd")
    warehouse = tmp_path / "q'uo[te] {x}" / "w.duckdb"
    code = cli.main(["build", str(release), "--warehouse", str(warehouse)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert _published_release(warehouse) == "fixture-odd"


def test_dbt_in_a_new_folder_parses_from_the_checkouts_latest_parse(
    releases: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first build of a new warehouse parses partially, however its folder is named: dbt
    starts from the parse the checkout saved last, and sees the same profile and release path."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the checkout keeps its parse
    release = releases / "a"
    parsed = []
    for name in ("first", "q'uo[te] {x}"):
        folder = tmp_path / name
        dbt = dbt_on(release, folder / "building.duckdb")
        try:
            assert dbt.invoke(["ls", "--select", "stg_release__models"]).success
        finally:
            dbt.stop()
        parsed.append(json.loads((folder / "target" / "perf_info.json").read_text())["parsed_path_count"])
    assert parsed[0] > 0 and parsed[1] == 0, parsed


def test_one_process_runs_a_model_reading_an_ephemeral_one_twice(releases: Path, tmp_path: Path) -> None:
    """dbt compiles into the parse it runs on (an ephemeral model's SQL marked as inlined): each
    command after the first parses again, so a second run of the judge labels' aggregate
    (which reads the ephemeral stg_release__judge_labels) inlines it again."""
    dbt = dbt_on(releases / "a", tmp_path / "building.duckdb")
    selected = ["run", "--select", *staging_models(contract.REQUIRED_TABLES)]
    try:
        outcomes = [dbt.invoke(selected) for _ in range(2)]
    finally:
        dbt.stop()
    assert [(o.success, o.failures()) for o in outcomes] == [(True, [])] * 2
    assert all(JUDGE_LABELS_AGGREGATE in {node.name for node in o.nodes} for o in outcomes)
