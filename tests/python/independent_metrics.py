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
    headline: dict[str, float | None]


def krippendorff_alpha_nominal(units: list[list[int]]) -> float | None:
    """Krippendorff's alpha, nominal, from its coincidence matrix (units of >= 2 values)."""
    values = sorted({v for unit in units for v in unit})
    coincidence = {(c, k): 0.0 for c in values for k in values}
    for unit in units:
        n = len(unit)
        counts = {v: unit.count(v) for v in values}
        for c in values:
            for k in values:
                pairs = counts[c] * (counts[k] - 1) if c == k else counts[c] * counts[k]
                coincidence[(c, k)] += pairs / (n - 1)
    totals = {c: sum(coincidence[(c, k)] for k in values) for c in values}
    n_total = sum(totals.values())
    expected = sum(totals[c] * totals[k] for c in values for k in values if c != k)
    if expected == 0:
        return None
    observed = sum(coincidence[(c, k)] for c in values for k in values if c != k)
    return 1 - (n_total - 1) * observed / expected


def judge_agreement(release: Path) -> dict[tuple[str | None, str], dict[str, float | int | None]]:
    """Self-consistency per (judge_id or None for all judges, dimension or 'all'): units are
    the (reply, criterion of its task) pairs of non-empty replies with >= 2 labels."""
    responses = _read(release, "responses")
    criteria = _read(release, "criteria")
    labels = _read(release, "judge_labels")
    nonempty = responses[~responses["content"].fillna("").str.strip().eq("")]
    rows = labels.merge(nonempty[["response_id", "task_id"]], on="response_id").merge(
        criteria[["criterion_id", "task_id", "dimension"]], on=["criterion_id", "task_id"]
    )
    out: dict[tuple[str | None, str], dict[str, float | int | None]] = {}
    scopes: list[tuple[str | None, pd.DataFrame]] = [(None, rows), *((str(j), g) for j, g in rows.groupby("judge_id"))]
    for judge, scoped in scopes:
        units = {key: [int(v) for v in g["met"]] for key, g in scoped.groupby(["response_id", "criterion_id"])}
        keys = zip(scoped["response_id"], scoped["criterion_id"], strict=True)
        dimension_of = dict(zip(keys, scoped["dimension"], strict=True))
        kept = {key: unit for key, unit in units.items() if len(unit) >= 2}
        for dimension in ["all", *sorted(set(dimension_of.values()))]:
            chosen = [u for key, u in kept.items() if dimension == "all" or dimension_of[key] == dimension]
            if not chosen:
                continue
            agreement = [
                (sum(u) * (sum(u) - 1) + (len(u) - sum(u)) * (len(u) - sum(u) - 1)) / (len(u) * (len(u) - 1))
                for u in chosen
            ]
            out[(judge, dimension)] = {
                "n_pairs": len(chosen),
                "n_labels": sum(len(u) for u in chosen),
                "unanimous_share": sum(1 for u in chosen if len(set(u)) == 1) / len(chosen),
                "tie_share": sum(1 for u in chosen if 2 * sum(u) == len(u)) / len(chosen),
                "observed_agreement": sum(agreement) / len(agreement),
                "krippendorff_alpha": krippendorff_alpha_nominal(chosen),
            }
    return out


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
    headline["judge_kappa"] = calibration_metrics.get("all", {}).get("kappa")
    headline["judge_alpha"] = judge_agreement(release).get((None, "all"), {}).get("krippendorff_alpha")
    for dimension in sorted(criteria["dimension"].unique()):
        values = [dimension_scores[(m, dimension)] for m in ranked]
        headline[f"best_{dimension}_score"] = max(values)
        headline[f"median_{dimension}_score"] = statistics.median(values)
    return Metrics(kinds, model_scores, dimension_scores, rnr, calibration_metrics, headline)


def calibrated_pairs(release: Path, *, tie_rule: str = "unmet") -> pd.DataFrame:
    """The calibrated (reply, criterion) pairs: task_id, model_id, dimension, the judge's
    verdict (met), the clinicians' majority (gold; None on a tie) and is_tie."""
    criteria = _read(release, "criteria")
    responses = _read(release, "responses")
    labels = _read(release, "judge_labels")
    calibration = _read(release, "calibration_labels")
    votes = labels.groupby(["response_id", "criterion_id"])["met"].agg(size="size", met_votes="sum").reset_index()
    pairs = responses.merge(criteria, on="task_id").merge(votes, on=["response_id", "criterion_id"])
    tie = 2 * pairs["met_votes"] == pairs["size"]
    empty = pairs["content"].fillna("").str.strip().eq("")
    pairs["met"] = ((2 * pairs["met_votes"] > pairs["size"]) | (tie & (tie_rule == "met"))) & ~empty
    gold = calibration.groupby(["response_id", "criterion_id"])["met"].agg(n="size", yes="sum").reset_index()
    gold["is_tie"] = 2 * gold["yes"] == gold["n"]
    gold["gold"] = 2 * gold["yes"] > gold["n"]
    joined = gold.merge(pairs, on=["response_id", "criterion_id"])
    return joined[["task_id", "model_id", "dimension", "met", "gold", "is_tie"]].reset_index(drop=True)


def calibration_statistics(tp: float, fp: float, fn: float, tn: float) -> dict[str, float | None]:
    """Agreement, Cohen's kappa, precision, recall and F1 from a confusion matrix."""
    n = tp + fp + fn + tn
    if n == 0:
        return {"agreement": None, "kappa": None, "precision": None, "recall": None, "f1": None}
    agreement = (tp + tn) / n
    judge_yes, gold_yes = (tp + fp) / n, (tp + fn) / n
    chance = judge_yes * gold_yes + (1 - judge_yes) * (1 - gold_yes)
    return {
        "agreement": agreement,
        "kappa": _ratio(agreement - chance, 1 - chance),
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "f1": _ratio(2 * tp, 2 * tp + fp + fn),
    }
