"""The `distressbench import-inspect` command: argument checks and one line per problem."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def import_inspect_command(logs: list[str], base: str, out: str, epoch: int, judge_id: str | None = None) -> int:
    """0 written (each log skipped named on stderr), 1 refused (each problem on stderr; also
    when no log can be imported), 2 bad arguments or no inspect-ai."""
    if importlib.util.find_spec("inspect_ai") is None:
        print("import-inspect: needs inspect-ai, the `inspect` extra: pip install -e '.[inspect]'", file=sys.stderr)
        return 2
    missing = [log for log in logs if not Path(log).is_file()]
    if missing or not Path(base).is_dir():
        what = f"no such log file: {missing[0]}" if missing else f"no such base release folder: {base}"
        print(f"import-inspect: {what}", file=sys.stderr)
        return 2
    from distressbench.evals.import_inspect import ImportRefused, import_inspect

    try:
        done = import_inspect([Path(log) for log in logs], Path(base), Path(out), epoch=epoch, judge_id=judge_id)
    except ImportRefused as refused:
        for problem in refused.skipped:
            print(f"import-inspect: skipped, {problem}", file=sys.stderr)
        if refused.problems == refused.skipped:
            print(f"import-inspect: refused, none of the {len(logs)} log(s) can be imported", file=sys.stderr)
            return 1
        for problem in refused.problems:
            print(f"import-inspect: {problem}", file=sys.stderr)
        print(f"import-inspect: refused, {len(refused.problems)} problem(s); nothing was written", file=sys.stderr)
        return 1
    for problem in done.skipped:
        print(f"import-inspect: skipped, {problem}", file=sys.stderr)
    counts = ", ".join(f"{n} {table}" for table, n in done.rows.items())
    used = f"{len(logs) - len(done.skipped)} of {len(logs)} logs" if done.skipped else f"{len(logs)} log(s)"
    print(
        f"wrote submission {out} from {used} ({counts}); add it with "
        f"`distressbench submit {base} {out} --out NEW_RELEASE`"
    )
    return 0
