"""The stage runner every build uses (DuckDB and Spark): `with stage(name):` prints
`[name] ...` and `[name] done in x s`, and turns any failure inside it into StageFailed
naming the stage; a build stopped inside it (Ctrl-C, SIGTERM) says in which stage on stderr
before it unwinds; `say()` prints a line of the build's output. And what every release
build leaves out of dbt's build."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from distressbench.errors import DistressbenchError

# what a release build's `dbt build` leaves out, on either engine: the unit tests, and the data
# tests no release can change (the seeds', tag release_invariant; those proving the SQL's own
# construction, tag model_logic: dbt_project.yml); plain `dbt build` and CI run those
NOT_IN_A_RELEASE_BUILD = (
    "--exclude-resource-type",
    "unit_test",
    "--exclude",
    "tag:release_invariant",
    "tag:model_logic",
)


class StageFailed(DistressbenchError, RuntimeError):
    """A build stage failed; the published warehouse was not touched. The message's first line
    is the error's ("build failed at stage '<stage>': ..."), each further line a note of its own
    (a failed check, a failed dbt node, where the logs are)."""

    names_the_command = True

    def __init__(self, stage: str, message: str) -> None:
        first, *rest = message.splitlines() or [""]
        super().__init__(f"build failed at stage '{stage}': {first}")
        self.stage = stage
        for line in rest:
            if line.strip():
                self.add_note(line)


def say(message: str) -> None:
    """One line of the build's output, flushed (a child process prints to the same output)."""
    print(message, flush=True)


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Run the block as the stage `name`: its start and duration printed, any exception
    raised as StageFailed(name, ...) (a StageFailed passes unchanged); an interruption (not
    an Exception) is named with the stage and passes on."""
    started = time.perf_counter()
    say(f"[{name}] ...")
    try:
        yield
    except StageFailed:
        raise
    except Exception as error:  # any surprise inside a stage is that stage's failure
        raise StageFailed(name, f"{type(error).__name__}: {error}") from error
    except BaseException as error:  # Ctrl-C, or SIGTERM as the CLI raises it: the build stops here
        print(f"build stopped at stage '{name}' ({type(error).__name__})", file=sys.stderr, flush=True)
        raise
    say(f"[{name}] done in {time.perf_counter() - started:.1f} s")
