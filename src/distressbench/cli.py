"""The `distressbench` command: synth, pack, gate, build, import-inspect, submit, sql, tables, report, show.

Domain code raises a `DistressbenchError` (distressbench.errors); this module alone catches
it, prints it on stderr, one line per cause (`error_lines`), and exits with its exit code (2:
bad arguments or paths; 1: the work itself failed), never a traceback; set
DISTRESSBENCH_DEBUG=1 to see the traceback of an unexpected error. Every hint it prints is a command to run as written:
the program as the user called it, the options they gave, every argument shell-quoted.
"""

from __future__ import annotations

import argparse
import gc
import os
import shlex
import shutil
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path
from types import FrameType
from typing import NoReturn

from distressbench.errors import DistressbenchError, UsageError
from distressbench.messages import error_line
from distressbench.settings import Settings

WAREHOUSE_HELP = "the published warehouse to read (default: DISTRESSBENCH_WAREHOUSE or warehouse/distressbench.duckdb)"
# The query the build's closing hint suggests.
FIRST_QUERY = "select model_id, score, ci_low, ci_high, rank from model_scores order by rank"


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose error line quotes at most a readable prefix of the arguments."""

    def error(self, message: str) -> NoReturn:
        super().error(error_line(message))


class Terminated(BaseException):
    """SIGTERM arrived: unwinds like Ctrl-C, so that every child process is ended on the way out."""


def _terminated(_signal: int, _frame: FrameType | None) -> None:
    raise Terminated


def _writable_file(path: Path, option: str) -> None:
    """Refuse, before any work, an output path that is a folder or sits under a file."""
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder; give a file name")
    parent = next((p for p in path.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise UsageError(f"{option} {path}: {parent} is not a folder")


# --------------------------------------------------------------------------- hints


def _program() -> str:
    """The program as the user called it (`.venv/bin/distressbench`), or `distressbench`
    when that is what the shell finds, or when it was not called by that name."""
    called = sys.argv[0] if sys.argv else ""
    if Path(called).name != "distressbench":
        return "distressbench"
    found = shutil.which("distressbench")
    if found is not None and Path(found).resolve() == Path(called).resolve():
        return "distressbench"
    return called


def _shown_path(path: Path) -> str:
    """A path as a hint shows it: relative to the current folder when it lies under it."""
    try:
        return str(path.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def command_line(*words: str) -> str:
    """A command of this program, shell-quoted, to be run as written."""
    return shlex.join([_program(), *words])


def _warehouse_words(args: argparse.Namespace) -> list[str]:
    return ["--warehouse", args.warehouse] if args.warehouse else []


def build_hint(release: Path, settings: Settings) -> str:
    """How to build a release just written. When the default warehouse already holds one,
    the command names a warehouse of its own beside it, so following it replaces nothing."""
    words = ["build", str(release)]
    if not settings.warehouse.exists():
        return f"build it with `{command_line(*words)}`"
    own = settings.warehouse.parent / f"{release.name}.duckdb"
    return (
        f"build it with `{command_line(*words, '--warehouse', _shown_path(own))}` "
        f"(a warehouse of its own; without --warehouse it would replace {_shown_path(settings.warehouse)})"
    )


def next_steps(args: argparse.Namespace) -> list[str]:
    """The commands to try after a build, with the warehouse the build was given."""
    warehouse = _warehouse_words(args)
    return [
        "next:",
        f"  {command_line('report', *warehouse)}    the offline HTML report",
        f"  {command_line('tables', *warehouse)}    the paper tables, one Markdown file each",
        f"  {command_line('sql', FIRST_QUERY, *warehouse)}",
    ]


# --------------------------------------------------------------------------- commands


def _cmd_synth(args: argparse.Namespace, settings: Settings) -> None:
    from distressbench.synth.config import SynthConfig
    from distressbench.synth.generate import write_release

    config = SynthConfig(
        seed=args.seed,
        n_tasks=args.tasks,
        n_models=args.models,
        judge_samples=args.judge_samples,
    )
    write_release(Path(args.out_dir), config, progress=True)
    print(f"wrote synthetic release to {args.out_dir}")


def _cmd_gate(args: argparse.Namespace, settings: Settings) -> int:
    from distressbench.gate.command import gate

    release = Path(args.release_dir)
    if not release.is_dir():
        raise UsageError(f"no such release folder: {release}")
    if args.report:
        _writable_file(Path(args.report), "--report")
    report = gate(release, Path(args.report) if args.report else None, settings)
    return 0 if report.passed else 1


def _cmd_build(args: argparse.Namespace, settings: Settings) -> None:
    from distressbench.publish.pipeline import build

    release = Path(args.release_dir) if args.release_dir else None
    if args.target == "spark":
        from distressbench.publish.spark.build import build_on_spark

        if args.warehouse or args.force:
            raise UsageError(
                "--warehouse and --force are for the DuckDB build; Spark builds go to DISTRESSBENCH_SPARK_DIR"
            )
        if args.spark_remote:
            settings = replace(settings, spark_remote=args.spark_remote)
        build_on_spark(release, settings)
        return
    if args.spark_remote:
        raise UsageError("--spark-remote is for --target spark")
    warehouse = Path(args.warehouse) if args.warehouse else settings.warehouse
    build(release, warehouse, settings, force=args.force)
    print("\n".join(next_steps(args)))


def _cmd_submit(args: argparse.Namespace, settings: Settings) -> None:
    from distressbench.submit import SubmissionRefused, submit

    for folder, whose in ((args.base_release_dir, "base release"), (args.submission_dir, "submission")):
        if not Path(folder).is_dir():
            raise UsageError(f"no such {whose} folder: {folder}")
    try:
        done = submit(
            Path(args.base_release_dir),
            Path(args.submission_dir),
            Path(args.out),
            release_id=args.release,
            memory_limit=settings.memory_limit,
        )
    except SubmissionRefused as error:
        raise DistressbenchError(f"refused, {len(error.failures)} check(s) failed; nothing was written") from error
    print(
        f"wrote release {done.release_id} to {done.out_dir} ({done.seconds:.1f} s); "
        f"{build_hint(Path(args.out), settings)}"
    )


def _cmd_pack(args: argparse.Namespace, settings: Settings) -> None:
    from distressbench.pack import pack_command

    out = Path(args.out)
    pack_command(Path(args.src_dir), out, args.release, args.synthetic, settings, build_hint(out, settings))


def _cmd_import_inspect(args: argparse.Namespace, _settings: Settings) -> None:
    from distressbench.evals.command import import_inspect_command

    base = Path(args.base)
    new_release = base.parent / f"{base.name}-with-{Path(args.out).name}"
    hint = f"add it with `{command_line('submit', args.base, args.out, '--out', str(new_release))}`"
    import_inspect_command(args.logs, args.base, args.out, args.epoch, hint, judge_id=args.judge_id)


def _cmd_sql(args: argparse.Namespace, settings: Settings) -> None:
    from distressbench.outputs.warehouse import print_query

    warehouse = Path(args.warehouse) if args.warehouse else settings.warehouse
    print_query(args.query, warehouse, args.format)


def _cmd_tables(args: argparse.Namespace, settings: Settings) -> None:
    from distressbench.outputs.tables.export import export_tables, tables_text
    from distressbench.outputs.tables.formatting import Wording

    warehouse = Path(args.warehouse) if args.warehouse else settings.warehouse
    wording = Wording.from_settings(settings)
    if args.out == "-":
        sys.stdout.write(tables_text(warehouse, wording, fmt=args.format))
        return
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a folder")
    written = export_tables(warehouse, wording, fmt=args.format, out_dir=out)
    for path in written:
        print(path)
    print(f"tables: wrote {len(written)} {args.format} files to {out}{os.sep}", file=sys.stderr)


def _cmd_report(args: argparse.Namespace, settings: Settings) -> None:
    from distressbench.outputs.report import write_report
    from distressbench.outputs.tables.formatting import Wording

    warehouse = Path(args.warehouse) if args.warehouse else settings.warehouse
    _writable_file(Path(args.out), "--out")
    print(write_report(warehouse, Path(args.out), Wording.from_settings(settings)))


def _cmd_show(args: argparse.Namespace, settings: Settings) -> None:
    from distressbench.outputs.show import show

    warehouse = Path(args.warehouse) if args.warehouse else settings.warehouse
    show(warehouse, args.task_id, args.model)


# --------------------------------------------------------------------------- the parser, one part per command


Subparsers = argparse._SubParsersAction  # argparse's (private) type of add_subparsers()


def _add_synth(sub: Subparsers) -> None:
    p = sub.add_parser("synth", help="write a synthetic release that follows the contract")
    p.add_argument("out_dir", help="the folder the release is written to")
    p.add_argument("--seed", type=int, default=20261101, help="the random seed (default 20261101: the default release)")
    p.add_argument("--tasks", type=int, default=718, help="conversations (default 718)")
    p.add_argument("--models", type=int, default=25, help="ranked models, plus one clinician reference (default 25)")
    p.add_argument("--judge-samples", type=int, default=3, help="judge samples per criterion and reply (default 3)")
    p.set_defaults(func=_cmd_synth)


def _add_gate(sub: Subparsers) -> None:
    p = sub.add_parser("gate", help="check a release against the contract")
    p.add_argument("release_dir", help="the release folder (Parquet files and manifest.json)")
    p.add_argument("--report", help="also write the results as JSON to this file")
    p.set_defaults(func=_cmd_gate)


def _add_build(sub: Subparsers) -> None:
    p = sub.add_parser("build", help="gate, build, audit and publish a release")
    p.add_argument("release_dir", nargs="?", help="the release folder (default: the embedded synthetic release)")
    p.add_argument(
        "--warehouse",
        help="the file to publish (default: DISTRESSBENCH_WAREHOUSE or warehouse/distressbench.duckdb)",
    )
    p.add_argument("--force", action="store_true", help="republish a release id with different content")
    p.add_argument(
        "--target",
        choices=["duckdb", "spark"],
        default="duckdb",
        help="duckdb (default): write-audit-publish into a DuckDB file; spark: build on Apache Spark (docs/spark.md)",
    )
    p.add_argument(
        "--spark-remote",
        metavar="URL",
        help="with --target spark: build over this Spark Connect server (sc://host:port; default: SPARK_REMOTE)",
    )
    p.set_defaults(func=_cmd_build)


def _add_submit(sub: Subparsers) -> None:
    p = sub.add_parser("submit", help="add a submission's models to a release, as a new release folder")
    p.add_argument("base_release_dir", help="the release the submission's models join")
    p.add_argument(
        "submission_dir", help="models.parquet, responses.parquet, judge_labels.parquet [, calibration_labels.parquet]"
    )
    p.add_argument("--out", required=True, help="the new release folder (must not exist)")
    p.add_argument("--release", help="the new release id (default: <base id>-plus-<8 hex of the submission>)")
    p.set_defaults(func=_cmd_submit)


def _add_pack(sub: Subparsers) -> None:
    p = sub.add_parser("pack", help="write a folder of tables (CSV, JSON Lines, Parquet) as a release")
    p.add_argument("src_dir", help="<table>.csv, .jsonl, .parquet or <table>/ of Parquet part files, per table")
    p.add_argument("--out", required=True, help="the new release folder (must not exist)")
    p.add_argument("--release", help="the release id (default: the --out folder's name)")
    p.add_argument(
        "--synthetic",
        action="store_true",
        help='mark the release as a generated stand-in ("synthetic": true in the manifest; the report says so). '
        'Without it the manifest says "synthetic": false, the published corpus: give it again for tables '
        "exported from a synthetic release",
    )
    p.set_defaults(func=_cmd_pack)


def _add_import_inspect(sub: Subparsers) -> None:
    p = sub.add_parser("import-inspect", help="turn Inspect AI logs of crisis_support into a submission folder")
    p.add_argument(
        "logs",
        nargs="+",
        metavar="LOG",
        help=".eval logs of `inspect eval distressbench/crisis_support`; a log that is no finished run on the base "
        "(an earlier failed run, say) is skipped and named on stderr",
    )
    p.add_argument("--base", required=True, help="the release the logs were run on")
    p.add_argument("--out", required=True, help="the submission folder (must not exist)")
    p.add_argument("--epoch", type=int, default=1, help="the epoch whose replies to import (default 1)")
    p.add_argument(
        "--judge-id",
        help="the judge_id to give the labels (default: the judge model the logs name); give the base release's "
        "judge id, for labels of its judge model, so that the models are ranked beside the base's",
    )
    p.set_defaults(func=_cmd_import_inspect)


def _add_sql(sub: Subparsers) -> None:
    p = sub.add_parser("sql", help="run a read-only query against the published warehouse")
    p.add_argument(
        "query",
        help="SQL that reads (select, describe, show, explain of a select, the pragmas that describe the file); "
        "unqualified names read the marts schema; several statements separated by ; print the last one's result",
    )
    p.add_argument(
        "--format",
        choices=("table", "csv", "json", "markdown"),
        default="table",
        help="table (default): aligned columns, numbers rounded for display, the first 200 rows; "
        "csv, json (an array of objects) and markdown: every row at full precision",
    )
    p.add_argument("--warehouse", help=WAREHOUSE_HELP)
    p.set_defaults(func=_cmd_sql)


def _add_tables(sub: Subparsers) -> None:
    p = sub.add_parser(
        "tables",
        help="export the paper tables",
        description="Write the paper tables T1-T7, A1-A3, P, J1-J4, one file each, and print each file's path.",
    )
    p.add_argument("--format", choices=("csv", "md", "latex"), default="md", help="the files' format (default: md)")
    p.add_argument(
        "--out",
        default="reports/tables",
        help="the folder the files go to (default: reports/tables); - prints every table to stdout instead",
    )
    p.add_argument("--warehouse", help=WAREHOUSE_HELP)
    p.set_defaults(func=_cmd_tables)


def _add_report(sub: Subparsers) -> None:
    p = sub.add_parser("report", help="write the offline HTML report")
    p.add_argument(
        "--out",
        default="reports/distressbench-report.html",
        help="the HTML file to write (default: reports/distressbench-report.html)",
    )
    p.add_argument("--warehouse", help=WAREHOUSE_HELP)
    p.set_defaults(func=_cmd_report)


def _add_show(sub: Subparsers) -> None:
    p = sub.add_parser("show", help="print one conversation, a model's reply and the rubric with verdicts")
    p.add_argument("task_id", help="the conversation's task_id (an unknown one is answered with the nearest ids)")
    p.add_argument("--model", help="the model whose reply to show; default: every model's cell score")
    p.add_argument("--warehouse", help=WAREHOUSE_HELP)
    p.set_defaults(func=_cmd_show)


# One part per command, in the order --help lists them.
COMMANDS: tuple[Callable[[Subparsers], None], ...] = (
    _add_synth,
    _add_gate,
    _add_build,
    _add_submit,
    _add_pack,
    _add_import_inspect,
    _add_sql,
    _add_tables,
    _add_report,
    _add_show,
)


def _parser() -> argparse.ArgumentParser:
    # The help lists the registered sub-commands (argparse generates it), so it names exactly
    # the commands that exist.
    parser = _Parser(
        prog="distressbench", description="DistressBench: check, build, publish and read a benchmark release."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('distressbench')}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    settings = Settings(debug=False)
    # SIGTERM unwinds like Ctrl-C; a handler can only be set from the main thread
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if in_main_thread else None
    try:
        settings = Settings.from_environment()
        return args.func(args, settings) or 0
    except KeyboardInterrupt:
        print(f"{args.command}: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print(f"{args.command}: terminated (SIGTERM); every process it started has ended", file=sys.stderr)
        return 128 + signal.SIGTERM
    except BrokenPipeError:
        # the reader of the output has gone (`| head`): end quietly, as a program ended by
        # SIGPIPE does; stdout goes to /dev/null so that Python's flush at exit fails no more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except DistressbenchError as error:
        for line in error_lines(args.command, error):
            print(line, file=sys.stderr)
        return error.exit_code
    except Exception as error:  # one line, never a traceback (the contract of every sub-command)
        if settings.debug:
            raise
        print(f"{args.command}: {_one_line(error)}", file=sys.stderr)
        return 2 if isinstance(error, OSError) else 1
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


def run() -> NoReturn:
    """The console command. What the command made is frozen out of the collector before the
    interpreter exits, which then skips collecting it (docs/benchmarks.md, "Kept, and why")."""
    code = main()
    gc.freeze()
    sys.exit(code)


def error_lines(command: str, error: DistressbenchError) -> list[str]:
    """What the user sees of a project error, one line per cause: its causes, its message
    (after "<command>: " unless the message names the command itself) and its notes."""
    lines = [f"{command}: {error_line(cause)}" for cause in error.causes]
    message = _one_line(error)
    lines.append(message if error.names_the_command else f"{command}: {message}")
    for note in getattr(error, "__notes__", ()):
        indent = len(note) - len(note.lstrip(" "))  # a note's own indent (a failure under its stage's line)
        lines.append(" " * indent + error_line(note))
    return lines


def _one_line(error: BaseException) -> str:
    """The error's message on one line, at most a readable prefix of it; its type when it
    has no message."""
    text = str(error)
    if isinstance(error, OSError) and error.strerror and error.filename:
        text = f"{error.filename}: {error.strerror}"
    return error_line(text) or type(error).__name__


if __name__ == "__main__":
    run()
