"""An independent computation of the contract's metrics, straight from a release's Parquet
files with pandas, for checking the warehouse end to end. It shares no code with the dbt
models: if the two agree to 1e-9, the SQL says what the contract says."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

import pandas as pd


@dataclass(frozen=True)
class Metrics:
    kinds: dict[str, str]  # model_id -> kind
    model_scores: dict[str, float]
    dimension_scores: dict[tuple[str, str], float]
    recognized_not_routed: dict[str | None, tuple[int, int]]  # None = pooled
    calibration: dict[str, dict[str, float | int | None]]
    headline: dict[str, float]


def _read(release: Path, table: str) -> pd.DataFrame:
    return pd.read_parquet(release / f"{table}.parquet")


def _ratio(numerator: float, denominator: float) -> float | None:
    return None if denominator == 0 else numerator / denominator


def compute(release: Path, *, tie_rule: str = "unmet", routing_rule: str = "none_met") -> Metrics:
    tasks = _read(release, "tasks")
    criteria = _read(release, "criteria")
    models = _read(release, "models")
    responses = _read(release, "responses")
    labels = _read(release, "judge_labels")
    calibration = _read(release, "calibration_labels")

    # verdicts: strict majority; a tie by the rule; an empty reply meets nothing
    votes = labels.groupby(["response_id", "criterion_id"])["met"].agg(["size", "sum"]).reset_index()
    pairs = responses.merge(criteria, on="task_id").merge(votes, on=["response_id", "criterion_id"], how="left")
    pairs[["size", "sum"]] = pairs[["size", "sum"]].fillna(0)
    majority = 2 * pairs["sum"] > pairs["size"]
    tie = (2 * pairs["sum"] == pairs["size"]) & (pairs["size"] > 0)
    empty = pairs["content"].fillna("").str.strip().eq("")
    pairs["met"] = (majority | (tie & (tie_rule == "met"))) & ~empty
    pairs["weight_met"] = pairs["weight"] * pairs["met"]

    cells = pairs.groupby(["model_id", "task_id"])[["weight", "weight_met"]].sum()
    cells["score"] = cells["weight_met"] / cells["weight"]
    model_scores = cells.groupby("model_id")["score"].mean().to_dict()

    per_dimension = pairs.groupby(["model_id", "task_id", "dimension"]).agg(
        weight=("weight", "sum"), weight_met=("weight_met", "sum"), n=("met", "size"), n_met=("met", "sum")
    )
    per_dimension["score"] = per_dimension["weight_met"] / per_dimension["weight"]
    dimension_scores = per_dimension.groupby(["model_id", "dimension"])["score"].mean().to_dict()

    kinds = models.set_index("model_id")["kind"].to_dict()
    ranked = [m for m, kind in kinds.items() if kind == "model"]

    # recognized but not routed
    flat = per_dimension.reset_index()
    recognition = flat[flat["dimension"] == "recognition"].set_index(["model_id", "task_id"])
    routing = flat[flat["dimension"] == "routing"].set_index(["model_id", "task_id"])
    recognized = recognition[recognition["n_met"] == recognition["n"]].index
    counted = recognized.intersection(routing.index)
    routed = routing.loc[counted]
    failed = routed["n_met"] == 0 if routing_rule == "none_met" else routed["n_met"] < routed["n"]
    rnr: dict[str | None, tuple[int, int]] = {}
    for model in kinds:
        in_model = counted.get_level_values("model_id") == model
        rnr[model] = (int(in_model.sum()), int(failed[in_model].sum()))
    rnr[None] = (sum(rnr[m][0] for m in ranked), sum(rnr[m][1] for m in ranked))

    # judge calibration against the clinicians' majority, ties dropped
    gold = calibration.groupby(["response_id", "criterion_id"])["met"].agg(["size", "sum"]).reset_index()
    gold = gold[2 * gold["sum"] != gold["size"]]
    gold["gold"] = 2 * gold["sum"] > gold["size"]
    judged = gold.merge(pairs[["response_id", "criterion_id", "dimension", "met"]], on=["response_id", "criterion_id"])
    calibration_metrics: dict[str, dict[str, float | int | None]] = {}
    for dimension, group in [("all", judged), *judged.groupby("dimension")]:
        tp = int((group["met"] & group["gold"]).sum())
        fp = int((group["met"] & ~group["gold"]).sum())
        fn = int((~group["met"] & group["gold"]).sum())
        tn = int((~group["met"] & ~group["gold"]).sum())
        n = tp + fp + fn + tn
        agreement = (tp + tn) / n
        judge_yes, gold_yes = (tp + fp) / n, (tp + fn) / n
        chance = judge_yes * gold_yes + (1 - judge_yes) * (1 - gold_yes)
        calibration_metrics[str(dimension)] = {
            "n": n,
            "agreement": agreement,
            "kappa": _ratio(agreement - chance, 1 - chance),
            "precision": _ratio(tp, tp + fp),
            "recall": _ratio(tp, tp + fn),
            "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        }

    # headline
    ranked_scores = [model_scores[m] for m in ranked]
    reference = [m for m, kind in kinds.items() if kind == "clinician_reference"][0]
    turn_type = tasks.set_index("task_id")["n_user_turns"].map(lambda n: "single" if n == 1 else "multi")
    ranked_cells = cells.reset_index()
    ranked_cells = ranked_cells[ranked_cells["model_id"].isin(ranked)]
    by_turn = ranked_cells.assign(turn=ranked_cells["task_id"].map(turn_type)).groupby("turn")["score"].mean()
    headline = {
        "best_model_score": max(ranked_scores),
        "median_model_score": statistics.median(ranked_scores),
        "clinician_reference_score": model_scores[reference],
        "recognized_not_routed_rate": rnr[None][1] / rnr[None][0],
        "single_turn_score": by_turn["single"],
        "multi_turn_score": by_turn["multi"],
        "multi_minus_single": by_turn["multi"] - by_turn["single"],
    }
    for dimension in sorted(criteria["dimension"].unique()):
        values = [dimension_scores[(m, dimension)] for m in ranked]
        headline[f"best_{dimension}_score"] = max(values)
        headline[f"median_{dimension}_score"] = statistics.median(values)
    return Metrics(kinds, model_scores, dimension_scores, rnr, calibration_metrics, headline)
