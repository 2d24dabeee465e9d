"""The two small baselines: the floor (one DuckDB pass) and the headline metrics in pandas.

Each runs in its own process (`benchmark.py _stage NAME RELEASE`) and prints one JSON line.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pandas as pd


def floor(release: Path) -> None:
    """One DuckDB group-by pass over judge_labels, materialised into a temp table."""
    with duckdb.connect() as connection:
        connection.execute(
            "create temp table votes as select response_id, criterion_id, count(*) as n,"
            " count(*) filter (where met) as n_met from read_parquet(?) group by all",
            [str(release / "judge_labels.parquet")],
        )
        (rows,) = connection.execute("select count(*) from votes").fetchone()
    print(json.dumps({"rows": rows}))


def headline_pandas(release: Path) -> None:
    """The headline model metrics in plain pandas: verdicts by majority (tie unmet, empty
    reply unmet), weighted fraction per reply, model score = mean over tasks, best and median
    ranked model, clinician reference, single/multi-turn, best/median per dimension."""
    labels = pd.read_parquet(release / "judge_labels.parquet", columns=["response_id", "criterion_id", "met"])
    votes = labels.groupby(["response_id", "criterion_id"], sort=False)["met"].agg(["size", "sum"]).reset_index()
    del labels
    responses = pd.read_parquet(
        release / "responses.parquet", columns=["response_id", "task_id", "model_id", "content"]
    )
    responses["is_empty"] = responses["content"].fillna("").str.strip().eq("")
    responses = responses.drop(columns="content")
    criteria = pd.read_parquet(release / "criteria.parquet", columns=["criterion_id", "task_id", "dimension", "weight"])
    models = pd.read_parquet(release / "models.parquet", columns=["model_id", "kind"])
    tasks = pd.read_parquet(release / "tasks.parquet", columns=["task_id", "n_user_turns"])
    pairs = responses.merge(criteria, on="task_id")
    pairs = pairs.merge(votes, on=["response_id", "criterion_id"], how="left")
    pairs["met"] = (~pairs["is_empty"]) & (pairs["sum"].fillna(0) * 2 > pairs["size"].fillna(0))
    pairs["weight_met"] = pairs["weight"] * pairs["met"]
    dims = (
        pairs.groupby(["response_id", "model_id", "task_id", "dimension"], sort=False)[["weight", "weight_met"]]
        .sum()
        .reset_index()
    )
    cells = (
        dims.groupby(["response_id", "model_id", "task_id"], sort=False)[["weight", "weight_met"]].sum().reset_index()
    )
    cells["score"] = cells["weight_met"] / cells["weight"]
    cells = cells.merge(models, on="model_id").merge(tasks, on="task_id")
    scores = cells.groupby(["model_id", "kind"])["score"].mean().reset_index()
    ranked = scores[scores["kind"] == "model"]["score"]
    ranked_cells = cells[cells["kind"] == "model"]
    single = ranked_cells[ranked_cells["n_user_turns"] == 1]["score"].mean()
    multi = ranked_cells[ranked_cells["n_user_turns"] > 1]["score"].mean()
    dims["score"] = dims["weight_met"] / dims["weight"]
    dims = dims.merge(models, on="model_id")
    per_dim = (
        dims[dims["kind"] == "model"]
        .groupby(["dimension", "model_id"])["score"]
        .mean()
        .groupby("dimension")
        .agg(["max", "median"])
    )
    out = {
        "best_model_score": float(ranked.max()),
        "median_model_score": float(ranked.median()),
        "clinician_reference_score": float(scores[scores["kind"] != "model"]["score"].max()),
        "single_turn_score": float(single),
        "multi_turn_score": float(multi),
        **{f"best_{d}_score": float(r["max"]) for d, r in per_dim.iterrows()},
        **{f"median_{d}_score": float(r["median"]) for d, r in per_dim.iterrows()},
    }
    print(json.dumps(out))
