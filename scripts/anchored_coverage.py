"""Coverage of the scores anchored to the clinicians, by simulation: how often their 95%
task-bootstrap interval covers each model's true clinician score, beside the judge-only
interval's coverage.

The synthetic generator knows every pair's clinician truth (distressbench.synth.labels
.clinician_truth; it never goes into a release). Each simulated release draws its own tasks,
replies, judge verdicts and calibrated pairs (a random calibration_fraction share, labelled
with the clinicians' truth) for the same models (drawn once, from the first seed); the models'
true clinician scores are their scores with the clinicians' truth on every pair, over a large
separate draw of tasks (--truth-tasks). Per release and model, the judge-only and anchored
intervals come from one task bootstrap (distressbench.stats.anchored.anchored_values over the
per-task sums), no dbt involved.

    .venv/bin/python scripts/anchored_coverage.py                    # the run docs/judge-reliability.md records
    .venv/bin/python scripts/anchored_coverage.py --releases 40 --samples 300
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from distressbench.stats.anchored import anchored_values
from distressbench.stats.bootstrap.draws import ResampleCounts
from distressbench.stats.bootstrap.estimates import percentile_interval
from distressbench.synth.config import SynthConfig
from distressbench.synth.labels import chunk_pairs, clinician_truth
from distressbench.synth.latent import Latent
from distressbench.synth.simulate import Models, chunk_size, draw_models, draw_tasks, simulate_chunk


@dataclass(frozen=True)
class TaskSums:
    """Per task (rows) and reply (columns: the ranked models, then the clinician reference):
    the judge's cell score, the clinicians' true cell score, and the calibrated pairs' D and N."""

    judge: np.ndarray
    truth: np.ndarray
    correction: np.ndarray
    mass: np.ndarray
    labelled: np.ndarray  # calibrated pairs


@dataclass(frozen=True)
class Coverage:
    releases: int
    intervals: int  # releases x replies
    anchored: float  # share of anchored intervals covering the true score
    judge: float  # share of judge-only intervals covering it
    anchored_width: float  # mean interval width
    judge_width: float
    judge_bias: float  # mean of judge-only estimate - true score
    anchored_bias: float
    calibrated_pairs: float  # mean calibrated pairs per model and release
    true_scores: tuple[float, ...]  # per reply (ranked models, then the clinician reference)
    anchored_by_reply: tuple[float, ...]  # coverage per reply
    judge_by_reply: tuple[float, ...]
    # the best and median over the ranked models, taken within each resample: coverage of the
    # true best and median, anchored and judge-only
    summaries: dict[str, tuple[float, float]]


def task_sums(config: SynthConfig, latent: Latent, models: Models) -> TaskSums:
    """The per-task sums of one simulated release of `config`'s tasks, replied to by `models`."""
    tasks = draw_tasks(config, latent)
    n, replies = config.n_tasks, config.n_replies_per_task
    out = [np.zeros((n, replies)) for _ in range(5)]
    size = chunk_size(config)
    for index, start in enumerate(range(0, n, size)):
        stop = min(start + size, n)
        chunk = simulate_chunk(config, latent, models, tasks, start, stop, index)
        pairs = chunk_pairs(config, chunk)
        truth, labelled = clinician_truth(config, latent, index, pairs, chunk.crit_dim)
        weight = chunk.crit_weight[pairs.crit].astype(np.float64)
        task_weight = np.bincount(chunk.crit_task, weights=chunk.crit_weight, minlength=chunk.n_tasks)
        share = weight / task_weight[chunk.crit_task[pairs.crit]]
        cell = pairs.block  # local task * replies + reply
        shape = (chunk.n_tasks, replies)
        for target, values in zip(
            out,
            (
                share * pairs.verdict,
                share * truth,
                share * labelled * (truth.astype(float) - pairs.verdict),
                share * labelled,
                labelled.astype(float),
            ),
            strict=True,
        ):
            target[start:stop] = np.bincount(cell, weights=values, minlength=chunk.n_tasks * replies).reshape(shape)
    return TaskSums(*out)


def simulate(
    *, releases: int, n_tasks: int, n_models: int, samples: int, seed: int, truth_tasks: int, alpha: float = 0.05
) -> Coverage:
    """Coverage over `releases` simulated releases of n_tasks tasks and n_models ranked models."""
    latent = Latent()
    models = draw_models(SynthConfig(seed=seed, n_tasks=n_tasks, n_models=n_models), latent)
    population = task_sums(SynthConfig(seed=seed, n_tasks=truth_tasks, n_models=n_models), latent, models)
    true_score = population.truth.mean(axis=0)
    covered = {"anchored": [], "judge": []}
    widths = {"anchored": [], "judge": []}
    bias = {"anchored": [], "judge": []}
    calibrated = []
    ranked = slice(0, n_models)
    summaries = {"best": np.max, "median": np.median}
    summary_covered: dict[str, list[tuple[bool, bool]]] = {name: [] for name in summaries}
    for r in range(releases):
        config = SynthConfig(seed=seed + 1 + r, n_tasks=n_tasks, n_models=n_models)
        sums = task_sums(config, latent, models)
        counts = ResampleCounts(seed + 1 + r, n_tasks, samples).take(samples)
        drawn = counts.sum(axis=1, keepdims=True)
        judge, anchored = anchored_values(counts @ sums.judge, drawn, counts @ sums.correction, counts @ sums.mass)
        point_judge, point_anchored = anchored_values(
            sums.judge.sum(axis=0), n_tasks, sums.correction.sum(axis=0), sums.mass.sum(axis=0)
        )
        for name, draws, point in (("anchored", anchored, point_anchored), ("judge", judge, point_judge)):
            low, high = percentile_interval(draws, alpha)
            covered[name].append((low <= true_score) & (true_score <= high))
            widths[name].append(high - low)
            bias[name].append(point - true_score)
        calibrated.append(sums.labelled.sum(axis=0))
        for name, summary in summaries.items():
            truth = summary(true_score[ranked])
            hits = []
            for draws in (anchored, judge):
                (low,), (high,) = percentile_interval(summary(draws[:, ranked], axis=1)[:, None], alpha)
                hits.append(bool(low <= truth <= high))
            summary_covered[name].append((hits[0], hits[1]))
    return Coverage(
        releases=releases,
        intervals=releases * (n_models + 1),
        anchored=float(np.mean(covered["anchored"])),
        judge=float(np.mean(covered["judge"])),
        anchored_width=float(np.mean(widths["anchored"])),
        judge_width=float(np.mean(widths["judge"])),
        judge_bias=float(np.mean(bias["judge"])),
        anchored_bias=float(np.mean(bias["anchored"])),
        calibrated_pairs=float(np.mean(calibrated)),
        true_scores=tuple(float(v) for v in true_score),
        anchored_by_reply=tuple(float(v) for v in np.mean(covered["anchored"], axis=0)),
        judge_by_reply=tuple(float(v) for v in np.mean(covered["judge"], axis=0)),
        summaries={name: tuple(np.mean(hits, axis=0).tolist()) for name, hits in summary_covered.items()},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--releases", type=int, default=300)
    parser.add_argument("--tasks", type=int, default=200, help="tasks per simulated release")
    parser.add_argument("--models", type=int, default=5, help="ranked models (a clinician reference is added)")
    parser.add_argument("--samples", type=int, default=1000, help="bootstrap resamples per release")
    parser.add_argument("--truth-tasks", type=int, default=20000, help="tasks of the draw the true scores come from")
    parser.add_argument("--seed", type=int, default=20261101)
    args = parser.parse_args()
    result = simulate(
        releases=args.releases,
        n_tasks=args.tasks,
        n_models=args.models,
        samples=args.samples,
        seed=args.seed,
        truth_tasks=args.truth_tasks,
    )
    print(
        f"{result.releases} releases x {args.models + 1} replies ({args.models} models + clinician reference), "
        f"{args.tasks} tasks each, B = {args.samples}, seed {args.seed}; true scores over {args.truth_tasks} tasks"
    )
    print(f"calibrated pairs per model and release (mean): {result.calibrated_pairs:.1f}")
    print("interval        coverage  mean width  mean bias (estimate - truth)")
    print(f"anchored        {result.anchored:8.3f}  {result.anchored_width:10.4f}  {result.anchored_bias:+.4f}")
    print(f"judge-only      {result.judge:8.3f}  {result.judge_width:10.4f}  {result.judge_bias:+.4f}")
    print("reply                 true score  anchored coverage  judge-only coverage")
    names = [f"model {i + 1}" for i in range(args.models)] + ["clinician reference"]
    for name, truth, anchored, judge in zip(
        names, result.true_scores, result.anchored_by_reply, result.judge_by_reply, strict=True
    ):
        print(f"{name:<20}  {truth:10.4f}  {anchored:17.3f}  {judge:19.3f}")
    for name, (anchored, judge) in result.summaries.items():
        print(f"{name + ' model':<20}  {'':10}  {anchored:17.3f}  {judge:19.3f}")


if __name__ == "__main__":
    main()
