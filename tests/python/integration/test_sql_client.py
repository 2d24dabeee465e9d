"""The interactive SQL client the setup installs (harlequin, docs/querying.md) opens a
warehouse read-only, as the docs show it: driven in a tmux session, it answers a query with
the warehouse's rows and refuses a write, and the file is unchanged."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

HARLEQUIN = Path(sys.executable).parent / "harlequin"
SESSION = "client"
WAIT = 60.0  # seconds for the client to start, answer or quit


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    path = tmp_path / "w.duckdb"
    with duckdb.connect(str(path)) as connection:
        connection.execute("create schema marts")
        connection.execute(
            "create table marts.model_scores as select * from "
            "(values ('model-a', 0.8843), ('model-b', 0.7141)) as t(model_id, score)"
        )
    return path


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[list[str]]:
    """tmux on a server of its own (its socket in tmp_path); the server ends with the test."""
    assert shutil.which("tmux"), "tmux is missing: scripts/setup --system-packages installs it"
    command = ["tmux", "-S", str(tmp_path / "tmux.socket")]
    yield command
    subprocess.run([*command, "kill-server"], capture_output=True, check=False, timeout=30)


def _screen(tmux: list[str]) -> str:
    return subprocess.run(
        [*tmux, "capture-pane", "-p", "-t", SESSION], capture_output=True, text=True, check=True, timeout=30
    ).stdout


def _wait_for(tmux: list[str], *texts: str) -> str:
    deadline = time.monotonic() + WAIT
    while True:
        screen = _screen(tmux)
        if all(text in screen for text in texts):
            return screen
        assert time.monotonic() < deadline, f"waited {WAIT:.0f} s for {texts}; the screen:\n{screen}"
        time.sleep(0.5)


def _keys(tmux: list[str], *keys: str) -> None:
    subprocess.run([*tmux, "send-keys", "-t", SESSION, *keys], check=True, timeout=30)


def _one_query(tmux: list[str], client: str, home: Path, sql: str, answer: str) -> str:
    """Start the client in a new tmux session, its cache and configuration in `home` (new:
    the client keeps its editor's text there), type the query into its editor (which has the
    focus at start), run it (Ctrl-J), and return the screen once it shows `answer`."""
    env = {**os.environ, "TERM": "xterm-256color"} | {
        f"XDG_{kind}_HOME": str(home / kind.lower()) for kind in ("CACHE", "CONFIG", "DATA")
    }
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", SESSION, "-x", "160", "-y", "45", client],
        check=True,
        timeout=30,
        env=env,
    )
    # the window keeps its size whatever client attaches (tmux's window-size "latest" may shrink it)
    subprocess.run([*tmux, "resize-window", "-t", SESSION, "-x", "160", "-y", "45"], check=True, timeout=30)
    _wait_for(tmux, "Query Editor", "Database Connected")
    _keys(tmux, "-l", sql)
    _wait_for(tmux, sql[-40:])  # the query's end: a narrow editor scrolls its start out of sight
    _keys(tmux, "C-j")
    screen = _wait_for(tmux, answer)
    _keys(tmux, "C-q")
    deadline = time.monotonic() + WAIT
    while subprocess.run([*tmux, "has-session", "-t", SESSION], capture_output=True, check=False).returncode == 0:
        assert time.monotonic() < deadline, "the client did not quit on Ctrl-Q"
        time.sleep(0.5)
    return screen


def test_the_client_reads_a_warehouse_read_only(warehouse: Path, tmux: list[str], tmp_path: Path) -> None:
    before = hashlib.sha256(warehouse.read_bytes()).hexdigest()
    # the command docs/querying.md shows, on the test's warehouse
    client = f"{HARLEQUIN} --read-only {warehouse}"
    query = "select model_id, score from marts.model_scores order by score desc"
    screen = _one_query(tmux, client, tmp_path / "reading", query, "Query Results (2 Records)")
    rows = [line.split("│")[-2].split() for line in screen.splitlines() if "model-" in line]
    assert rows == [["model-a", "0.8843"], ["model-b", "0.7141"]]
    # the write is refused: the client shows DuckDB's error (its text may render late in the
    # popup), and the file's bytes are unchanged
    _one_query(tmux, client, tmp_path / "writing", "create table marts.x as select 1", "DuckDB raised an error")
    assert hashlib.sha256(warehouse.read_bytes()).hexdigest() == before
