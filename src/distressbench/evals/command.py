"""The `distressbench import-inspect` command: argument checks, and one line per problem (the
refusal's causes, which cli.py prints) or per log skipped."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from distressbench.errors import DistressbenchError, UsageError


def import_inspect_command(
    logs: list[str], base: str, out: str, epoch: int, submit_hint: str, judge_id: str | None = None
) -> None:
    """The submission written (each log skipped named on stderr, and the command goes on),
    then `submit_hint` (the command that adds it to the base); or a DistressbenchError whose
    causes are the logs skipped and the problems found (also when no log can be imported);
    UsageError for bad arguments or no inspect-ai.
    judge_id, if given, is the judge_id the labels get (default: the judge model's name)."""
    if importlib.util.find_spec("inspect_ai") is None:
        raise UsageError("needs inspect-ai, the `inspect` extra: pip install -e '.[inspect]'")
    missing = [log for log in logs if not Path(log).is_file()]
    if missing:
        raise UsageError(f"no such log file: {missing[0]}")
    if not Path(base).is_dir():
        raise UsageError(f"no such base release folder: {base}")
    from distressbench.evals.import_inspect import ImportRefused, import_inspect

    try:
        done = import_inspect([Path(log) for log in logs], Path(base), Path(out), epoch=epoch, judge_id=judge_id)
    except ImportRefused as refused:
        skipped = [f"skipped, {problem}" for problem in refused.skipped]
        if refused.problems == refused.skipped:
            message = f"refused, none of the {len(logs)} log(s) can be imported"
            raise DistressbenchError(message, causes=skipped) from refused
        message = f"refused, {len(refused.problems)} problem(s); nothing was written"
        raise DistressbenchError(message, causes=[*skipped, *refused.problems]) from refused
    # the logs left out of a submission that was written: notes, the command goes on
    for problem in done.skipped:
        print(f"import-inspect: skipped, {problem}", file=sys.stderr)
    counts = ", ".join(f"{n} {table}" for table, n in done.rows.items())
    used = f"{len(logs) - len(done.skipped)} of {len(logs)} logs" if done.skipped else f"{len(logs)} log(s)"
    print(f"wrote submission {out} from {used} ({counts}); {submit_hint}")
