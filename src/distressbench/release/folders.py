"""A folder written beside its destination under a temporary name, then renamed into place.

The name is `.<destination name>.<host>.<process id>.<random hex>.partial`, and the folder
is made as any folder is (its mode from the umask, as the destination's would be). A process
killed before it could rename or remove its folder leaves it behind; the next folder made
for the same destination on the same host removes those whose process has ended (a live
process is still writing its own). It never removes a folder of another destination whose
name merely starts the same way, nor one made on another host: on a folder two machines
share, a process id says nothing about the other machine's processes. Used by `submit` (the
derived release), `pack` and the embedded default release's writer.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUFFIX = ".partial"
# this machine's name as the folder names carry it: letters, digits and hyphens only
HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname()) or "host"
# what follows `.<destination name>.` in the name: the host, the process id, the random part
_REST = re.compile(r"([A-Za-z0-9-]+)\.(\d+)\.[0-9a-f]+" + re.escape(SUFFIX))


def is_taken(destination: Path) -> bool:
    """Whether anything is at `destination`: a file, a folder or a link, even a broken one
    (which renaming a folder onto it would fail on)."""
    return destination.exists() or destination.is_symlink()


def make_beside(destination: Path) -> Path:
    """A new empty folder beside `destination`, once the abandoned ones for it are removed."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(destination)
    folder = destination.parent / f".{destination.name}.{HOST}.{os.getpid()}.{secrets.token_hex(4)}{SUFFIX}"
    folder.mkdir()
    return folder


@contextmanager
def written_beside(destination: Path) -> Iterator[Path]:
    """A new folder beside `destination` to write into, renamed to `destination` when the
    block ends, removed when it raises."""
    folder = make_beside(destination)
    try:
        yield folder
        os.rename(folder, destination)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _remove_abandoned(destination: Path) -> None:
    prefix = f".{destination.name}."
    for folder in destination.parent.iterdir():
        rest = _REST.fullmatch(folder.name[len(prefix) :]) if folder.name.startswith(prefix) else None
        if (
            rest
            and rest.group(1) == HOST
            and folder.is_dir()
            and not folder.is_symlink()
            and not _is_running(int(rest.group(2)))
        ):
            shutil.rmtree(folder, ignore_errors=True)


def _is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True
