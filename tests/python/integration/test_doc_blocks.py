"""The docs run as written. Every shell block of README.md and docs/ calls the project's
tools through `.venv/bin/` (the README's set-up makes them; nothing else is on PATH), and
each block marked `<!-- runnable -->` (or `<!-- runnable: NAME=VALUE ... -->`, run with
those variables set) is run, page by page in PAGES' order and in order within a page, in a
temporary clone of the working tree, as a newcomer would after the README's set-up. What
the blocks write is ignored by git: the clone's `git status` is the same after them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from distressbench.settings import PROJECT_ROOT

# The pages with runnable blocks, in the order they run: the demo builds the warehouse the
# querying blocks read.
PAGES = ("docs/inspect.md", "docs/querying.md", "README.md")
MARKER = re.compile(r"^<!-- runnable(?::(?P<env>.*?))? -->\n```bash\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
ANY_MARKER = re.compile(r"<!-- runnable")
SHELL_BLOCK = re.compile(r"^```(?P<lang>bash|sh|shell|console)?\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")
# What a command line of a shell block may start with: a tool of the set-up's .venv, a
# script of the repository, git
RUNS_AS_WRITTEN = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S+\s+)*(?:\.venv/bin/|scripts/|git )")
BLOCK_TIMEOUT = 900  # seconds for one block (the demo's build among them)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    env: dict[str, str]
    body: str


def _pages() -> list[Path]:
    return [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]


def _env(text: str | None) -> dict[str, str]:
    """The NAME=VALUE words at the start of a marker's text (a remark may follow; values hold
    no white space)."""
    env: dict[str, str] = {}
    for word in (text or "").split():
        if not ASSIGNMENT.match(word):
            break
        name, value = word.split("=", 1)
        env[name] = value
    return env


def runnable_blocks(page: Path, root: Path = PROJECT_ROOT) -> list[Block]:
    """The page's runnable blocks (`page` lies under `root`, a checkout)."""
    text = page.read_text(encoding="utf-8")
    blocks = [
        Block(
            page.relative_to(root).as_posix(),
            text[: match.start()].count("\n") + 1,
            _env(match.group("env")),
            match.group("body"),
        )
        for match in MARKER.finditer(text)
    ]
    assert len(blocks) == len(ANY_MARKER.findall(text)), f"{page}: a runnable marker not right above a ```bash block"
    return blocks


def _command_lines(body: str) -> list[str]:
    """The block's commands: continuation lines joined, comments and blank lines left out."""
    joined = body.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_every_shell_block_calls_the_tools_as_the_set_up_installs_them() -> None:
    """A command that starts with a bare `distressbench`, `dbt` or `python` is `command not
    found` (or another Python) in a shell that did not activate the environment."""
    strays = [
        f"{page.relative_to(PROJECT_ROOT)}: {line}"
        for page in _pages()
        for match in SHELL_BLOCK.finditer(page.read_text(encoding="utf-8"))
        if match.group("lang")
        for line in _command_lines(match.group("body"))
        if not RUNS_AS_WRITTEN.match(line)
    ]
    assert strays == []


def test_every_page_with_runnable_blocks_is_run_in_order() -> None:
    marked = {page.relative_to(PROJECT_ROOT).as_posix() for page in _pages() if runnable_blocks(page)}
    assert marked == set(PAGES)


def _clone(into: Path) -> Path:
    """A clone of the working tree: the repository's history, then every tracked or
    unignored file as it is now; `.venv` is the checkout's own."""
    clone = into / "clone"
    subprocess.run(["git", "clone", "--quiet", str(PROJECT_ROOT), str(clone)], check=True, timeout=300)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = PROJECT_ROOT / name
        if source.is_file() and not source.is_symlink() and name != ".venv":
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    (clone / ".venv").symlink_to((PROJECT_ROOT / ".venv").resolve(), target_is_directory=True)
    return clone


def _status(clone: Path) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout


def _newcomer_env(clone: Path) -> dict[str, str]:
    """This process's environment as a new shell has it: no virtual environment on PATH and
    none of the project's variables; the package imported from the clone (the shared .venv
    installs it editable from another checkout)."""
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DISTRESSBENCH_", "INSPECT_", "SPARK_")) and k not in ("VIRTUAL_ENV", "PYTHONHOME")
    }
    return env | {"PATH": path, "PYTHONPATH": f"{clone / 'src'}{os.pathsep}{clone / 'scripts'}"}


@pytest.mark.integration
def test_the_runnable_blocks_run_as_written(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    before = _status(clone)
    env = _newcomer_env(clone)
    for page in PAGES:
        for block in runnable_blocks(clone / page, clone):
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", block.body],
                cwd=clone,
                env=env | block.env,
                capture_output=True,
                text=True,
                timeout=BLOCK_TIMEOUT,
            )
            where = f"{block.page}:{block.line}"
            output = f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            assert done.returncode == 0, f"{where} exited {done.returncode}:\n{output}"
            assert "command not found" not in done.stderr, f"{where}: {done.stderr[-2000:]}"
            assert "Traceback" not in done.stderr, f"{where}: {done.stderr[-2000:]}"
    assert _status(clone) == before, "a documented command wrote where git does not ignore it"
