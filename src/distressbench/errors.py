"""The project's one error type. Domain code raises a `DistressbenchError` (or a subclass)
with a message that names what is wrong; `cli.py` alone prints it as one line on stderr and
exits with its `exit_code`: 2 for arguments or paths that cannot work, 1 for work that
failed."""

from __future__ import annotations


class DistressbenchError(Exception):
    """A problem reported to the user as one line; `exit_code` is what the command exits with."""

    exit_code: int = 1

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(DistressbenchError):
    """An argument or path that cannot work (exit code 2)."""

    exit_code = 2
