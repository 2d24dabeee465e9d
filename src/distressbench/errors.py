"""The project's one error type. Domain code raises a `DistressbenchError` (or a subclass)
with a message that names what is wrong; `cli.py` alone prints it on stderr and exits with its
`exit_code`: 2 for arguments or paths that cannot work, 1 for work that failed.

One line per cause: the error's `causes` (what was found, each on its own line, before it),
then its message as one line, then its notes (`add_note`: what a line of its own adds after it,
such as the state the failure left behind, each on its own line)."""

from __future__ import annotations

from collections.abc import Sequence


class DistressbenchError(Exception):
    """A problem reported to the user; `exit_code` is what the command exits with."""

    exit_code: int = 1
    # True: the message is a sentence that names the command itself ("build failed at stage
    # ..."), printed as it is, not after "<command>: "
    names_the_command: bool = False

    def __init__(self, message: str, *, exit_code: int | None = None, causes: Sequence[str] = ()) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code
        self.causes = tuple(causes)


class UsageError(DistressbenchError):
    """An argument or path that cannot work (exit code 2)."""

    exit_code = 2
