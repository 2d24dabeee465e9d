"""Where a build's time goes: the gate's stages and dbt's nodes by kind (`benchmark.py --profile`).

The gate runs as its own process (`distressbench gate --report`), its output read line by line
as it prints: each check's line is stamped when it arrives, so the time before a line is the
work that line reports. Read so, the gate needs no timer of its own and the profile keeps
working whatever its stages are called: the time to the first line is the process's start-up
and the reading of the release (manifest, every file's sha256 and footer); lines of the same
stage that arrive together (within GROUP_GAP) are one group, one pass of the gate (the
manifest and file checks, the schemas, a group of value rules run as one validation); the
time before the first `readable` line is the staging run (the staging tables built in
DuckDB) and, beside it, the import of Great Expectations, whichever ends last.
Stage timings the gate reports itself (a `stages` or `timings` object of the JSON report,
name -> seconds) are printed beside them when present.

dbt's nodes come from the build's own run_results.json (each node's execution time) and
manifest.json (its kind and tags): models, data tests, unit tests, seeds, hooks, by count,
total and median seconds, and the slowest nodes of each kind.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

# lines of one stage arriving within this many seconds of each other are one group
GROUP_GAP = 0.02
# the check the gate records once its staging run has ended and Great Expectations is
# imported (one per table read): the time before its group is the longer of the two
STAGING_CHECK = "readable"
KINDS = {
    "model": "models",
    "test": "data tests",
    "unit_test": "unit tests",
    "seed": "seeds",
    "operation": "hooks",
    "exposure": "exposures",
}
SLOWEST = 5


@dataclass(frozen=True)
class Line:
    seconds: float  # since the process started
    text: str


def build_stages(lines: Iterable[str]) -> dict[str, float]:
    """A build's own stage times, from its '[stage] done in x s' lines."""
    stages: dict[str, float] = {}
    for line in lines:
        if line.startswith("[") and "] done in " in line:
            name, _, rest = line[1:].partition("] done in ")
            stages[name] = float(rest.split()[0])
    return stages


def stamped_run(command: list[str], *, log: Path) -> list[Line]:
    """Run `command`, stamping each line of its output (stdout and stderr) as it arrives."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    lines: list[Line] = []
    started = time.perf_counter()
    with (
        log.open("w") as sink,
        subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        ) as process,
    ):
        assert process.stdout is not None
        for text in process.stdout:
            lines.append(Line(time.perf_counter() - started, text.rstrip("\n")))
            sink.write(text)
        code = process.wait()
    lines.append(Line(time.perf_counter() - started, ""))  # the process's end
    if code not in (0, 1):  # 1: the release was refused, which is still a profile
        raise RuntimeError(f"{command[:3]} exited {code}; see {log}")
    return lines


def _check_of(text: str) -> tuple[str, str] | None:
    """(label, check) of a gate line `PASS <label>` or `FAIL <label>: <message>`, the label
    being `<check> <table>.<column>`."""
    if not text.startswith(("PASS ", "FAIL ")):
        return None
    label = text[5:].split(":", 1)[0].strip()
    return (label, label.split()[0]) if label else None


def gate_groups(lines: list[Line], stage_of: dict[str, str]) -> list[dict[str, Any]]:
    """The gate's time in groups: start-up and reading (to the first check line), then each
    burst of check lines of one stage (its report's `stage` of each check, by label; the
    time from the line before the burst to its last line), the one after the staging run
    named for it; then the end (the verdict, the report, the process's exit)."""
    checks = [(line.seconds, *parsed) for line in lines if (parsed := _check_of(line.text)) is not None]
    if not checks:
        return [{"stage": "whole gate", "what": "no check line", "checks": 0, "seconds": lines[-1].seconds}]
    previous = checks[0][0]
    groups: list[dict[str, Any]] = [{"stage": "start-up and reading", "names": set(), "checks": 0, "seconds": previous}]
    for seconds, label, check in checks:
        stage = stage_of.get(label, "?")
        if check == STAGING_CHECK:
            stage = f"staging run beside the GX import, then {stage}"
        if groups[-1]["stage"] != stage or seconds - previous > GROUP_GAP:
            groups.append({"stage": stage, "names": set(), "checks": 0, "seconds": 0.0})
        group = groups[-1]
        group["seconds"] += seconds - previous
        group["checks"] += 1
        group["names"].add(check)
        previous = seconds
    groups.append({"stage": "end", "names": set(), "checks": 0, "seconds": lines[-1].seconds - previous})
    for group in groups:
        group["what"] = ", ".join(sorted(group.pop("names")))
    groups[0]["what"] = "imports; manifest, every file's sha256 and footer"
    groups[-1]["what"] = "the verdict, the report, the process's exit"
    return groups


def stages_of_checks(report: Path) -> dict[str, str]:
    """Each check's stage by its label, from the gate's JSON report."""
    if not report.exists():
        return {}
    checks = json.loads(report.read_text(encoding="utf-8")).get("checks", [])
    return {str(c.get("label")): str(c.get("stage", "?")) for c in checks if isinstance(c, dict)}


def reported_stages(report: Path) -> dict[str, float]:
    """The stage timings the gate's JSON report carries itself, if any (name -> seconds)."""
    if not report.exists():
        return {}
    data = json.loads(report.read_text(encoding="utf-8"))
    stages = data.get("stages") or data.get("timings") or {}
    if isinstance(stages, list):  # [{"name": ..., "seconds": ...}]
        return {str(s.get("name")): float(s.get("seconds", 0.0)) for s in stages if isinstance(s, dict)}
    return {str(name): float(seconds) for name, seconds in stages.items() if isinstance(seconds, int | float)}


def dbt_nodes(target: Path) -> dict[str, dict[str, Any]]:
    """dbt's nodes of the last command in `target`, by kind: count, total and median seconds,
    the slowest; data tests also by tag."""
    results = json.loads((target / "run_results.json").read_text())["results"]
    manifest = json.loads((target / "manifest.json").read_text())
    nodes = {**manifest.get("nodes", {}), **manifest.get("unit_tests", {})}
    by_kind: dict[str, list[tuple[str, float]]] = defaultdict(list)
    by_tag: dict[str, list[float]] = defaultdict(list)
    for result in results:
        unique_id, seconds = result["unique_id"], float(result["execution_time"])
        kind = KINDS.get(unique_id.split(".", 1)[0], unique_id.split(".", 1)[0])
        by_kind[kind].append((unique_id.split(".")[2], seconds))
        if kind == "data tests":
            for tag in nodes.get(unique_id, {}).get("tags", []) or ["(untagged)"]:
                by_tag[tag].append(seconds)
    summary: dict[str, dict[str, Any]] = {}
    for kind, timed in sorted(by_kind.items(), key=lambda item: -sum(s for _, s in item[1])):
        seconds = [s for _, s in timed]
        summary[kind] = {
            "count": len(timed),
            "seconds": sum(seconds),
            "median": statistics.median(seconds),
            "slowest": sorted(timed, key=lambda item: -item[1])[:SLOWEST],
        }
    summary["data tests"] = summary.get("data tests", {"count": 0, "seconds": 0.0, "median": 0.0, "slowest": []})
    summary["data tests"]["by_tag"] = {tag: (len(s), sum(s)) for tag, s in sorted(by_tag.items())}
    return summary


def _f(value: float) -> str:
    return f"{value:.2f}"


def gate_table(rows: list[dict[str, Any]]) -> str:
    """Markdown: the gate's groups per size."""
    lines = ["| size | stage | checks in the group | checks | seconds |", "| --- | --- | --- | --- | --- |"]
    for row in rows:
        for group in row["gate"]:
            what = group["what"].replace("|", "\\|")
            lines.append(f"| {row['label']} | {group['stage']} | {what} | {group['checks']} | {_f(group['seconds'])} |")
        lines.append(f"| {row['label']} | **whole process** | | | **{_f(row['gate_seconds'])}** |")
        for name, seconds in row["gate_reported"].items():
            lines.append(f"| {row['label']} | reported by the gate | {name} | | {_f(seconds)} |")
    return "\n".join(lines)


def dbt_table(rows: list[dict[str, Any]]) -> str:
    """Markdown: dbt's nodes by kind per size, and the data tests by tag."""
    lines = ["| size | kind | nodes | seconds | median s | slowest |", "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        for kind, node in row["dbt"].items():
            slowest = ", ".join(f"{name} {seconds:.2f}" for name, seconds in node["slowest"])
            lines.append(
                f"| {row['label']} | {kind} | {node['count']} | {_f(node['seconds'])} | {node['median']:.3f} "
                f"| {slowest} |"
            )
        for tag, (count, seconds) in row["dbt"]["data tests"]["by_tag"].items():
            lines.append(f"| {row['label']} | data tests tagged {tag} | {count} | {_f(seconds)} | | |")
    return "\n".join(lines)


def profile_size(label: str, tasks: int, models: int, cli: Path, work: Path) -> dict[str, Any]:
    """One release of this size: the gate alone, its lines stamped; then a first build, its
    stages and dbt's nodes by kind."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    release, report, warehouse = work / "release", work / "gate.json", work / "build" / "build.duckdb"
    print(f"  {label}: synth, gate, build", flush=True)
    stamped_run(
        [str(cli), "synth", str(release), "--tasks", str(tasks), "--models", str(models)], log=work / "synth.log"
    )
    gate = stamped_run([str(cli), "gate", str(release), "--report", str(report)], log=work / "gate.log")
    build = stamped_run([str(cli), "build", str(release), "--warehouse", str(warehouse)], log=work / "build.log")
    manifest = json.loads((release / "manifest.json").read_text())
    return {
        "label": label,
        "tasks": tasks,
        "models": models,
        "labels": manifest["files"]["judge_labels.parquet"]["rows"],
        "gate": gate_groups(gate, stages_of_checks(report)),
        "gate_seconds": gate[-1].seconds,
        "gate_reported": reported_stages(report),
        "build_seconds": build[-1].seconds,
        "stages": build_stages(line.text for line in build),
        "dbt": dbt_nodes(warehouse.parent / f"{warehouse.name}.builds" / "dbt-target"),
    }


def profile_doc(rows: list[dict[str, Any]], info: dict[str, str]) -> str:
    """Markdown: the profile of each size."""
    sizes = "; ".join(
        f"{r['label']}: {r['tasks']} tasks, {r['models']} models, {r['labels']:,} judge labels; the build "
        f"{r['build_seconds']:.1f} s wall, its stages "
        + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in r["stages"].items())
        for r in rows
    )
    return (
        f"Machine: {info['nproc']} cores ({info['cpu']}), {info['memory']} memory, Python {info['python']}; "
        f"{info['date']}; load average at the start {info['load']} (the machine is shared).\n\n"
        f"{sizes}.\n\n"
        "`distressbench gate` alone (seconds from the line before a group to its last line):\n\n"
        f"{gate_table(rows)}\n\n"
        "dbt's nodes in the release build (`dbt build` after the gate's staging run; seconds of execution, "
        "from run_results.json):\n\n"
        f"{dbt_table(rows)}"
    )
