"""The `distressbench` command: synth, pack, gate, build, import-inspect, submit, sql, tables, report, show.

Every sub-command reports a problem as one line on stderr and an exit code (2: bad
arguments or paths; 1: the work itself failed), never a traceback; set
DISTRESSBENCH_DEBUG=1 to see the traceback of an unexpected error.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import NoReturn

from distressbench.messages import error_line
from distressbench.settings import Settings


class UsageError(ValueError):
    """A command-line argument that cannot work (exit code 2)."""


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


def _cmd_synth(args: argparse.Namespace, settings: Settings) -> int:
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
    return 0


def _cmd_gate(args: argparse.Namespace, settings: Settings) -> int:
    from distressbench.gate.command import gate

    release = Path(args.release_dir)
    if not release.is_dir():
        print(f"gate: no such release folder: {release}", file=sys.stderr)
        return 2
    if args.report:
        _writable_file(Path(args.report), "--report")
    report = gate(release, Path(args.report) if args.report else None, settings)
    return 0 if report.passed else 1


def _cmd_build(args: argparse.Namespace, settings: Settings) -> int:
    from distressbench.publish.pipeline import build

    release = Path(args.release_dir) if args.release_dir else None
    if args.target == "spark":
        from distressbench.publish.spark.build import build_on_spark

        if args.warehouse or args.force:
            print(
                "build: --warehouse and --force are for the DuckDB build; Spark builds go to DISTRESSBENCH_SPARK_DIR",
                file=sys.stderr,
            )
            return 2
        if args.spark_remote:
            settings = replace(settings, spark_remote=args.spark_remote)
        return build_on_spark(release, settings)
    if args.spark_remote:
        print("build: --spark-remote is for --target spark", file=sys.stderr)
        return 2
    warehouse = Path(args.warehouse) if args.warehouse else settings.warehouse
    return build(release, warehouse, settings, force=args.force)


def _cmd_submit(args: argparse.Namespace, settings: Settings) -> int:
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
        print(f"submit: refused, {len(error.failures)} check(s) failed; nothing was written", file=sys.stderr)
        return 1
    print(
        f"wrote release {done.release_id} to {done.out_dir} ({done.seconds:.1f} s); build it with "
        f"`distressbench build {done.out_dir}`"
    )
    return 0


def _cmd_pack(args: argparse.Namespace, settings: Settings) -> int:
    from distressbench.pack import pack_command

    return pack_command(Path(args.src_dir), Path(args.out), args.release, args.synthetic, settings)


def _cmd_import_inspect(args: argparse.Namespace, _settings: Settings) -> int:
    from distressbench.evals.command import import_inspect_command

    return import_inspect_command(args.logs, args.base, args.out, args.epoch)


def _cmd_sql(args: argparse.Namespace, settings: Settings) -> int:
    from distressbench.outputs.warehouse import print_query

    warehouse = Path(args.warehouse) if args.warehouse else settings.warehouse
    return print_query(args.query, warehouse)


def _cmd_tables(args: argparse.Namespace, settings: Settings) -> int:
    from distressbench.outputs.tables.export import export_tables, tables_text

    warehouse = Path(args.warehouse) if args.warehouse else settings.warehouse
    if args.out == "-":
        sys.stdout.write(tables_text(warehouse, fmt=args.format))
        return 0
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a folder")
    written = export_tables(warehouse, fmt=args.format, out_dir=out)
    for path in written:
        print(path)
    print(f"tables: wrote {len(written)} {args.format} files to {out}{os.sep}", file=sys.stderr)
    return 0


def _cmd_report(args: argparse.Namespace, settings: Settings) -> int:
    from distressbench.outputs.report import write_report

    warehouse = Path(args.warehouse) if args.warehouse else settings.warehouse
    _writable_file(Path(args.out), "--out")
    out = write_report(warehouse, Path(args.out))
    print(out)
    return 0


def _cmd_show(args: argparse.Namespace, settings: Settings) -> int:
    from distressbench.outputs.show import show

    warehouse = Path(args.warehouse) if args.warehouse else settings.warehouse
    return show(warehouse, args.task_id, args.model)


def _parser() -> argparse.ArgumentParser:
    # The help lists the registered sub-commands (argparse generates it), so it names exactly
    # the commands that exist.
    parser = _Parser(
        prog="distressbench", description="DistressBench: check, build, publish and read a benchmark release."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    synth = sub.add_parser("synth", help="write a synthetic release that follows the contract")
    synth.add_argument("out_dir")
    synth.add_argument("--seed", type=int, default=20261101)
    synth.add_argument("--tasks", type=int, default=718)
    synth.add_argument("--models", type=int, default=25, help="ranked models (plus one clinician reference)")
    synth.add_argument("--judge-samples", type=int, default=3)
    synth.set_defaults(func=_cmd_synth)

    gate = sub.add_parser("gate", help="check a release against the contract")
    gate.add_argument("release_dir")
    gate.add_argument("--report", help="also write the results as JSON to this file")
    gate.set_defaults(func=_cmd_gate)

    build = sub.add_parser("build", help="gate, build, audit and publish a release")
    build.add_argument("release_dir", nargs="?", help="default: the embedded synthetic release")
    build.add_argument("--warehouse", help="default: DISTRESSBENCH_WAREHOUSE or warehouse/distressbench.duckdb")
    build.add_argument("--force", action="store_true", help="republish a release id with different content")
    build.add_argument(
        "--target",
        choices=["duckdb", "spark"],
        default="duckdb",
        help="duckdb (default): write-audit-publish into a DuckDB file; spark: build on Apache Spark (README)",
    )
    build.add_argument(
        "--spark-remote",
        metavar="URL",
        help="with --target spark: build over this Spark Connect server (sc://host:port; default: SPARK_REMOTE)",
    )
    build.set_defaults(func=_cmd_build)

    submit = sub.add_parser("submit", help="add a submission's models to a release, as a new release folder")
    submit.add_argument("base_release_dir")
    submit.add_argument(
        "submission_dir", help="models.parquet, responses.parquet, judge_labels.parquet [, calibration_labels.parquet]"
    )
    submit.add_argument("--out", required=True, help="the new release folder (must not exist)")
    submit.add_argument("--release", help="the new release id (default: <base id>-plus-<8 hex of the submission>)")
    submit.set_defaults(func=_cmd_submit)

    pack = sub.add_parser("pack", help="write a folder of tables (CSV, JSON Lines, Parquet) as a release")
    pack.add_argument("src_dir", help="<table>.csv, .jsonl, .parquet or <table>/ of Parquet part files, per table")
    pack.add_argument("--out", required=True, help="the new release folder (must not exist)")
    pack.add_argument("--release", help="the release id (default: the --out folder's name)")
    pack.add_argument(
        "--synthetic",
        action="store_true",
        help='mark the release as a generated stand-in ("synthetic": true in the manifest; the report says so). '
        'Without it the manifest says "synthetic": false, the published corpus: give it again for tables '
        "exported from a synthetic release",
    )
    pack.set_defaults(func=_cmd_pack)

    inspect = sub.add_parser("import-inspect", help="turn Inspect AI logs of crisis_support into a submission folder")
    inspect.add_argument(
        "logs",
        nargs="+",
        metavar="LOG",
        help=".eval logs of `inspect eval distressbench/crisis_support`; a log that is no finished run on the base "
        "(an earlier failed run, say) is skipped and named on stderr",
    )
    inspect.add_argument("--base", required=True, help="the release the logs were run on")
    inspect.add_argument("--out", required=True, help="the submission folder (must not exist)")
    inspect.add_argument("--epoch", type=int, default=1, help="the epoch whose replies to import (default 1)")
    inspect.set_defaults(func=_cmd_import_inspect)

    sql = sub.add_parser("sql", help="run a read-only query against the published warehouse")
    sql.add_argument("query")
    sql.add_argument("--warehouse")
    sql.set_defaults(func=_cmd_sql)

    tables = sub.add_parser(
        "tables",
        help="export the paper tables",
        description="Write the paper tables T1-T7, A1, P, J1-J4, one file each, and print each file's path.",
    )
    tables.add_argument("--format", choices=("csv", "md", "latex"), default="md", help="default: md")
    tables.add_argument(
        "--out",
        default="reports/tables",
        help="the folder the files go to (default: reports/tables); - prints every table to stdout instead",
    )
    tables.add_argument("--warehouse", help="default: DISTRESSBENCH_WAREHOUSE or warehouse/distressbench.duckdb")
    tables.set_defaults(func=_cmd_tables)

    report = sub.add_parser("report", help="write the offline HTML report")
    report.add_argument("--out", default="reports/distressbench-report.html")
    report.add_argument("--warehouse")
    report.set_defaults(func=_cmd_report)

    show = sub.add_parser("show", help="print one conversation, a model's reply and the rubric with verdicts")
    show.add_argument("task_id")
    show.add_argument("--model", help="the model whose reply to show; default: every model's cell score")
    show.add_argument("--warehouse")
    show.set_defaults(func=_cmd_show)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    settings = Settings(debug=False)
    # SIGTERM unwinds like Ctrl-C; a handler can only be set from the main thread
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if in_main_thread else None
    try:
        settings = Settings.from_environment()
        return int(args.func(args, settings))
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
    except UsageError as error:
        print(f"{args.command}: {_one_line(error)}", file=sys.stderr)
        return 2
    except Exception as error:  # one line, never a traceback (the contract of every sub-command)
        if settings.debug:
            raise
        print(f"{args.command}: {_one_line(error)}", file=sys.stderr)
        return 2 if isinstance(error, OSError | ValueError) else 1
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


def run() -> NoReturn:
    """The console command."""
    sys.exit(main())


def _one_line(error: BaseException) -> str:
    """The error's message on one line, at most a readable prefix of it; its type when it
    has no message."""
    text = str(error)
    if isinstance(error, OSError) and error.strerror and error.filename:
        text = f"{error.filename}: {error.strerror}"
    return error_line(text) or type(error).__name__


if __name__ == "__main__":
    run()
