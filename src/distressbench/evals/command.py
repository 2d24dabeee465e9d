"""The `distressbench import-inspect` command: argument checks and one line per problem."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def import_inspect_command(logs: list[str], base: str, out: str, epoch: int) -> int:
    """0 written, 1 refused (each problem on stderr), 2 bad arguments or no inspect-ai."""
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
        rows = import_inspect([Path(log) for log in logs], Path(base), Path(out), epoch=epoch)
    except ImportRefused as refused:
        for problem in refused.problems:
            print(f"import-inspect: {problem}", file=sys.stderr)
        print(f"import-inspect: refused, {len(refused.problems)} problem(s); nothing was written", file=sys.stderr)
        return 1
    counts = ", ".join(f"{n} {table}" for table, n in rows.items())
    print(f"wrote submission {out} ({counts}); add it with `distressbench submit {base} {out} --out NEW_RELEASE`")
    return 0
