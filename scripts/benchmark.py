"""Benchmark the release pipeline from 1x to 100x and write docs/benchmarks.md.

For each size it generates a synthetic release and times each step as its own subprocess
under `/usr/bin/time -f '%e %M'` (wall seconds, peak RSS of it and its children): synth;
`distressbench gate` alone; `distressbench build` end to end into a new warehouse (a first
build: dbt parses the project from scratch); the same build again with --force into that
warehouse (a rebuild: dbt parses partially); the bootstrap alone on the built cells. The
build's own stage times ("[stage] done in x s") and dbt's slowest nodes give the profile.
Three baselines run on the same release in the same run (scripts/benchmarks/, none imports
the package): the floor, one DuckDB group-by pass over judge_labels materialised into a
temp table; a plain pandas computation of the headline model metrics; and the like-for-like
pipeline, the pandas/numpy script doing a build's work (contract checks, metrics, the joint
task bootstrap). On the built warehouse, `distressbench sql` with a one-row query is timed
against `python -c` with duckdb alone, --sql-repeats times each. Ratios are taken within a
run, then their median over --runs (fewer at 100x with --runs-100x).

With --profile it measures where one build's time goes instead (scripts/benchmarks/profile.py):
the gate's stages, from its check lines stamped as they arrive, and dbt's nodes by kind, from
the build's run_results.json; it writes the profile part of docs/benchmarks.md. With
--mistakes it times `gate` and `pack` on a default-size release with one schema or value-rule
mistake (scripts/benchmarks/mistakes.py), and writes the mistakes part.

    .venv/bin/python scripts/benchmark.py                   # everything, writes docs/benchmarks.md
    .venv/bin/python scripts/benchmark.py --scales 1 --runs 1 --no-doc
    .venv/bin/python scripts/benchmark.py --profile --scales 1   # where the time goes at 1x
    .venv/bin/python scripts/benchmark.py --mistakes             # how soon gate and pack answer a mistake
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = Path(sys.executable)
CLI = PYTHON.with_name("distressbench")
BASE_TASKS = 718
BASE_MODELS = 25
STAGES = ("synth", "gate", "build_e2e", "rebuild", "bootstrap", "floor", "pandas", "pipeline", "sql", "duckdb_sql")
SQL_QUERY = "select count(*) as n from model_scores"
DUCKDB_ALONE = (
    "import sys, duckdb; connection = duckdb.connect(sys.argv[1], read_only=True); "
    "print(connection.execute('select count(*) as n from marts.model_scores').fetchall())"
)
BUILD_STAGES = ("gate", "publish check", "dbt build", "verify", "audit", "publish")


# --------------------------------------------------------------------------- stage bodies
# Each runs in its own process (`benchmark.py _stage NAME ...`), so /usr/bin/time sees only it.


def _bootstrap(database: Path) -> None:
    """The bootstrap alone (the dbt model's inputs and call), on a built database."""
    import duckdb

    from distressbench.settings import Settings
    from distressbench.stats.bootstrap.inputs import read_inputs
    from distressbench.stats.bootstrap.run import run_bootstrap

    with duckdb.connect(str(database), read_only=True) as connection:
        models = ("int_cells_scored", "int_cells_triaged", "int_cell_dimensions_scored")
        cells, dimensions = read_inputs(*(connection.table(f"intermediate.{name}") for name in models))
    # B, seed and alpha: the project's vars, as the dbt model has them
    project = Settings()
    parameters = {name: project.var(f"bootstrap_{name}") for name in ("samples", "seed", "alpha")}
    started = time.perf_counter()
    run_bootstrap(cells, dimensions, **parameters)
    print(json.dumps({"run_bootstrap_seconds": time.perf_counter() - started}))


def _stage_main(argv: list[str]) -> None:
    from benchmarks import baselines, pipeline

    name, *args = argv
    paths = [Path(a) for a in args]
    stages = {
        "floor": baselines.floor,
        "pandas": baselines.headline_pandas,
        "pipeline": pipeline.main,
        "bootstrap": _bootstrap,
    }
    stages[name](*paths)


# --------------------------------------------------------------------------- driver


@dataclass
class Measure:
    seconds: float
    peak_mib: float
    extra: dict[str, Any] = field(default_factory=dict)


def timed(command: list[str], *, env: dict[str, str] | None = None, log: Path) -> Measure:
    """Run command under /usr/bin/time; wall seconds and peak RSS (MiB) of it and its children."""
    stats = log.with_suffix(".time")
    with log.open("w") as sink:
        result = subprocess.run(
            ["/usr/bin/time", "-f", "%e %M", "-o", str(stats), *command],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    if result.returncode != 0:
        raise RuntimeError(f"{command[:4]} exited {result.returncode}; see {log}")
    seconds, kib = stats.read_text().split()[-2:]
    extra: dict[str, Any] = {}
    last = log.read_text(errors="replace").strip().splitlines()
    if last and last[-1].startswith("{"):
        extra = json.loads(last[-1])
    return Measure(float(seconds), int(kib) / 1024, extra)


def _slowest_nodes(target: Path, n: int = 8) -> list[tuple[str, float]]:
    results = json.loads((target / "run_results.json").read_text())["results"]
    ranked = sorted(results, key=lambda r: -r["execution_time"])
    return [(r["unique_id"].split(".", 2)[-1], round(r["execution_time"], 2)) for r in ranked[:n]]


def _build_stages(log: Path) -> dict[str, float]:
    """The build's own stage times, from its '[stage] done in x s' lines."""
    from benchmarks.profile import build_stages

    return build_stages(log.read_text(errors="replace").splitlines())


def run_size(
    label: str, tasks: int, models: int, runs: int, work: Path, rebuild: bool, sql_repeats: int
) -> dict[str, Any]:
    """Every step `runs` times on a fresh release of this size."""
    measures: dict[str, list[Measure]] = {s: [] for s in STAGES}
    nodes: list[tuple[str, float]] = []
    labels = 0
    for run in range(runs):
        folder = work / f"run{run}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        release = folder / "release"

        def say(stage: str, run: int = run) -> None:
            print(f"  {label} run {run + 1}/{runs}: {stage}", flush=True)

        say("synth")
        measures["synth"].append(
            timed(
                [str(CLI), "synth", str(release), "--tasks", str(tasks), "--models", str(models)],
                log=folder / "synth.log",
            )
        )
        labels = json.loads((release / "manifest.json").read_text())["files"]["judge_labels.parquet"]["rows"]
        say("floor")
        measures["floor"].append(
            timed([str(PYTHON), __file__, "_stage", "floor", str(release)], log=folder / "floor.log")
        )
        say("gate")
        measures["gate"].append(
            timed([str(CLI), "gate", str(release), "--report", str(folder / "gate.json")], log=folder / "gate.log")
        )
        warehouse = folder / "e2e" / "e2e.duckdb"
        say("distressbench build")
        measure = timed([str(CLI), "build", str(release), "--warehouse", str(warehouse)], log=folder / "build.log")
        measure.extra["stages"] = _build_stages(folder / "build.log")
        measures["build_e2e"].append(measure)
        if rebuild:
            say("distressbench build --force (rebuild)")
            measure = timed(
                [str(CLI), "build", str(release), "--warehouse", str(warehouse), "--force"], log=folder / "rebuild.log"
            )
            measure.extra["stages"] = _build_stages(folder / "rebuild.log")
            measures["rebuild"].append(measure)
        target = warehouse.parent / f"{warehouse.name}.builds" / "dbt-target"
        nodes = _slowest_nodes(target)
        say("bootstrap")
        measures["bootstrap"].append(
            timed(
                [str(PYTHON), __file__, "_stage", "bootstrap", str(warehouse.resolve())], log=folder / "bootstrap.log"
            )
        )
        say(f"sql and duckdb alone, {sql_repeats} times each")
        for repeat in range(sql_repeats):
            measures["sql"].append(
                timed([str(CLI), "sql", SQL_QUERY, "--warehouse", str(warehouse)], log=folder / f"sql{repeat}.log")
            )
            measures["duckdb_sql"].append(
                timed([str(PYTHON), "-c", DUCKDB_ALONE, str(warehouse)], log=folder / f"duckdb{repeat}.log")
            )
        shutil.rmtree(folder / "e2e", ignore_errors=True)
        say("like-for-like pipeline")
        measures["pipeline"].append(
            timed([str(PYTHON), __file__, "_stage", "pipeline", str(release)], log=folder / "pipeline.log")
        )
        say("pandas")
        measures["pandas"].append(
            timed([str(PYTHON), __file__, "_stage", "pandas", str(release)], log=folder / "pandas.log")
        )
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "label": label,
        "tasks": tasks,
        "models": models,
        "labels": labels,
        "runs": runs,
        "measures": measures,
        "nodes": nodes,
    }


def _ratio(ours: list[Measure], theirs: list[Measure], attribute: str) -> float | None:
    """The median over runs of ours / theirs, each pair from the same run."""
    if not ours or not theirs:
        return None
    return statistics.median(getattr(a, attribute) / getattr(b, attribute) for a, b in zip(ours, theirs, strict=True))


def _median(values: list[Measure], attribute: str) -> float | None:
    return statistics.median(getattr(m, attribute) for m in values) if values else None


def summarise(result: dict[str, Any]) -> dict[str, Any]:
    measures: dict[str, list[Measure]] = result["measures"]
    row: dict[str, Any] = {k: result[k] for k in ("label", "tasks", "models", "labels", "runs")}
    for stage in STAGES:
        row[f"{stage}_s"] = _median(measures[stage], "seconds")
        row[f"{stage}_mib"] = _median(measures[stage], "peak_mib")
    # Ratios within each run, then their median.
    pairs = list(zip(measures["build_e2e"], measures["pandas"], measures["floor"], strict=True))
    row["build_over_pandas_time"] = statistics.median(b.seconds / p.seconds for b, p, _ in pairs)
    row["build_over_pandas_mem"] = statistics.median(b.peak_mib / p.peak_mib for b, p, _ in pairs)
    row["pandas_over_build_time"] = statistics.median(p.seconds / b.seconds for b, p, _ in pairs)
    row["x_floor"] = statistics.median(b.seconds / f.seconds for b, _, f in pairs)
    row["build_over_pipeline_time"] = _ratio(measures["build_e2e"], measures["pipeline"], "seconds")
    row["build_over_pipeline_mem"] = _ratio(measures["build_e2e"], measures["pipeline"], "peak_mib")
    row["rebuild_over_pipeline_time"] = _ratio(measures["rebuild"], measures["pipeline"], "seconds")
    row["rebuild_over_pipeline_mem"] = _ratio(measures["rebuild"], measures["pipeline"], "peak_mib")
    row["sql_repeats"] = len(measures["sql"]) // max(1, result["runs"])
    row["stages"] = {
        name: statistics.median(m.extra["stages"].get(name, 0.0) for m in measures["build_e2e"])
        for name in BUILD_STAGES
    }
    row["run_bootstrap_s"] = statistics.median(m.extra.get("run_bootstrap_seconds", 0.0) for m in measures["bootstrap"])
    row["nodes"] = result["nodes"]
    return row


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def machine() -> dict[str, str]:
    """The machine, and the date and load average as the benchmark starts."""
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    mem_kib = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
    )
    return {
        "nproc": str(os.cpu_count()),
        "memory": f"{mem_kib / 2**20:.1f} GiB",
        "cpu": cpu,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load": load_average(),
        "python": platform.python_version(),
    }


def _f(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown: seconds (median) and peak MiB per step, the baselines and the ratios."""
    head = (
        "| size | tasks | models | judge labels | runs | synth s | `gate` s / MiB | `build` (first) s / MiB "
        "| rebuild s / MiB | floor s / MiB | pandas s / MiB | build / pandas: time, memory | pandas / ours (time) "
        "| x floor |"
    )
    lines = [head, "|" + "|".join([" --- "] * (head.count("|") - 1)) + "|"]
    for r in rows:
        lines.append(
            f"| {r['label']} | {r['tasks']} | {r['models']} | {r['labels']:,} | {r['runs']} | {_f(r['synth_s'])} "
            f"| {_f(r['gate_s'])} / {_f(r['gate_mib'], 0)} | {_f(r['build_e2e_s'])} / {_f(r['build_e2e_mib'], 0)} "
            f"| {_f(r['rebuild_s'])} / {_f(r['rebuild_mib'], 0)} "
            f"| {_f(r['floor_s'])} / {_f(r['floor_mib'], 0)} | {_f(r['pandas_s'])} / {_f(r['pandas_mib'], 0)} "
            f"| {_f(r['build_over_pandas_time'], 2)}x, {_f(r['build_over_pandas_mem'], 2)}x "
            f"| {_f(r['pandas_over_build_time'], 2)} | {_f(r['x_floor'])} |"
        )
    return "\n".join(lines)


def like_for_like(rows: list[dict[str, Any]]) -> str:
    """Markdown: the build against the like-for-like pipeline, and `sql` against duckdb alone."""
    head = (
        "| size | `build` (first) s / MiB | rebuild s / MiB | pipeline s / MiB | first build / pipeline: time, memory "
        "| rebuild / pipeline: time, memory | `sql` one row, s (median) | duckdb alone, s (median) |"
    )
    lines = [head, "|" + "|".join([" --- "] * (head.count("|") - 1)) + "|"]
    for r in rows:
        lines.append(
            f"| {r['label']} | {_f(r['build_e2e_s'])} / {_f(r['build_e2e_mib'], 0)} "
            f"| {_f(r['rebuild_s'])} / {_f(r['rebuild_mib'], 0)} | {_f(r['pipeline_s'])} / {_f(r['pipeline_mib'], 0)} "
            f"| {_f(r['build_over_pipeline_time'], 2)}x, {_f(r['build_over_pipeline_mem'], 2)}x "
            f"| {_f(r['rebuild_over_pipeline_time'], 2)}x, {_f(r['rebuild_over_pipeline_mem'], 2)}x "
            f"| {_f(r['sql_s'], 2)} | {_f(r['duckdb_sql_s'], 2)} |"
        )
    return "\n".join(lines)


def profile(rows: list[dict[str, Any]]) -> str:
    """Markdown: the first build's stage times and the bootstrap alone, per size."""
    head = "| size | " + " | ".join(BUILD_STAGES) + " | bootstrap alone (run_bootstrap) |"
    lines = [head, "|" + "|".join([" --- "] * (head.count("|") - 1)) + "|"]
    for r in rows:
        stages = " | ".join(_f(r["stages"].get(name)) for name in BUILD_STAGES)
        lines.append(f"| {r['label']} | {stages} | {_f(r['run_bootstrap_s'])} |")
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "_stage":
        _stage_main(sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,10,100", help="task multiples of 718 (25 models)")
    parser.add_argument("--model-scales", default="10", help="model multiples of 25 at 718 tasks ('' for none)")
    parser.add_argument("--runs", type=int, default=3, help="runs per size below 100x")
    parser.add_argument("--runs-100x", type=int, default=1, help="runs at 100x")
    parser.add_argument("--rebuild-100x", action="store_true", help="also time the rebuild at 100x")
    parser.add_argument(
        "--work", type=Path, default=None, help="scratch folder (default: a temp folder, deleted after)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the raw rows as JSON")
    parser.add_argument("--sql-repeats", type=int, default=7, help="processes of `sql` and of duckdb alone per run")
    parser.add_argument("--no-doc", action="store_true", help="print only; do not write docs/benchmarks.md")
    parser.add_argument(
        "--from-json", type=Path, default=None, help="write the doc from a --json file of an earlier run"
    )
    parser.add_argument(
        "--profile", action="store_true", help="where one build's time goes, per --scales (writes its own part)"
    )
    parser.add_argument(
        "--mistakes", action="store_true", help="how soon gate and pack answer a mistake (writes its own part)"
    )
    args = parser.parse_args()
    if args.profile:
        return run_profile(args)
    if args.mistakes:
        return run_mistakes(args)
    if args.from_json:
        saved = json.loads(args.from_json.read_text())
        print(table(saved["rows"]))
        write_doc(saved["rows"], saved["machine"])
        return 0

    sizes = [(f"tasks {s}x", BASE_TASKS * int(s), BASE_MODELS) for s in args.scales.split(",") if s]
    sizes += [(f"models {s}x", BASE_TASKS, BASE_MODELS * int(s)) for s in args.model_scales.split(",") if s]
    work = args.work or Path(tempfile.mkdtemp(prefix="distressbench-bench-"))
    info = machine()
    rows: list[dict[str, Any]] = []
    try:
        for label, tasks, models in sizes:
            big = tasks * models >= 100 * BASE_TASKS * BASE_MODELS
            runs = args.runs_100x if big else args.runs
            print(f"{label}: {tasks} tasks x {models} models, {runs} run(s)", flush=True)
            result = run_size(
                label,
                tasks,
                models,
                runs,
                work / label.replace(" ", "-"),
                rebuild=not big or args.rebuild_100x,
                sql_repeats=args.sql_repeats,
            )
            rows.append(summarise(result))
            print(table(rows[-1:]), like_for_like(rows[-1:]), sep="\n\n", flush=True)
            if args.json:  # each size as it ends, so that a run cut short keeps what it measured
                save_json(args.json, info, rows)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    info["load_end"] = load_average()
    if args.json:
        save_json(args.json, info, rows)
    print(table(rows), like_for_like(rows), sep="\n\n")
    if not args.no_doc:
        write_doc(rows, info)
    return 0


def run_profile(args: argparse.Namespace) -> int:
    """--profile: each of --scales profiled once; the doc's profile part written unless --no-doc."""
    work = args.work or Path(tempfile.mkdtemp(prefix="distressbench-profile-"))
    info = machine()
    from benchmarks.profile import profile_doc, profile_size

    try:
        rows = [
            profile_size(f"tasks {s}x", BASE_TASKS * int(s), BASE_MODELS, CLI, work / f"profile-{s}x")
            for s in args.scales.split(",")
            if s
        ]
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "rows": rows}, indent=1, default=str))
    text = profile_doc(rows, info)
    print(text)
    if not args.no_doc:
        replace_part("profile", text)
    return 0


def run_mistakes(args: argparse.Namespace) -> int:
    """--mistakes: gate and pack on a default-size release with one mistake, --runs each; the
    doc's mistakes part written unless --no-doc."""
    from benchmarks.mistakes import measure, mistakes_doc

    work = args.work or Path(tempfile.mkdtemp(prefix="distressbench-mistakes-"))
    info = machine()
    try:
        release = work / "release"
        subprocess.run([str(CLI), "synth", str(release)], check=True, capture_output=True)
        rows = measure(CLI, release, work / "runs", args.runs)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "rows": rows}, indent=1))
    text = mistakes_doc(rows, info)
    print(text)
    if not args.no_doc:
        replace_part("mistakes", text)
    return 0


def replace_part(part: str, text: str) -> None:
    """Replace the text between docs/benchmarks.md's markers `<!-- {part}: start -->` and
    `<!-- {part}: end -->`, keeping the rest."""
    doc = ROOT / "docs" / "benchmarks.md"
    start, end = f"<!-- {part}: start -->", f"<!-- {part}: end -->"
    before, found, rest = doc.read_text(encoding="utf-8").partition(start)
    if not found:
        raise SystemExit(f"docs/benchmarks.md has no {start} marker")
    _, _, after = rest.partition(end)
    doc.write_text(f"{before}{start}\n{text}\n{end}{after}", encoding="utf-8")


def save_json(path: Path, info: dict[str, str], rows: list[dict[str, Any]]) -> None:
    """The machine and the rows measured so far, as `--from-json` reads them."""
    path.write_text(json.dumps({"machine": info, "rows": rows}, indent=1, default=str))


def write_doc(rows: list[dict[str, Any]], info: dict[str, str]) -> None:
    """Replace the measured part of docs/benchmarks.md (between the markers), keep the prose."""
    nodes = "\n".join(
        f"- {r['label']}: " + ", ".join(f"{name} {seconds} s" for name, seconds in r["nodes"]) for r in rows
    )
    ends = f", at the end {info['load_end']}" if "load_end" in info else ""
    measured = (
        f"Machine: {info['nproc']} cores ({info['cpu']}), {info['memory']} memory, Python {info['python']}; "
        f"{info['date']}; load average at the start {info['load']}{ends} (the machine is shared).\n\n"
        f"{table(rows)}\n\n"
        "The first build and the rebuild against the like-for-like pipeline; `distressbench sql` against duckdb "
        "alone (whole processes, median):\n\n"
        f"{like_for_like(rows)}\n\n"
        "Stages of the first build (seconds, median):\n\n"
        f"{profile(rows)}\n\n"
        "Slowest dbt nodes per size (seconds, last run, from dbt's run_results.json):\n\n"
        f"{nodes}"
    )
    replace_part("measured", measured)


if __name__ == "__main__":
    sys.exit(main())
