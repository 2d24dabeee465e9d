"""criterion_pass_rates, cases and conversation_turns against an independent pandas
computation: on the hand-made fixture (hostile ids and texts) and on a small synthetic release."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pandas as pd

from distressbench import settings
from fixtures.independent_cases import cases, criterion_pass_rates

TOLERANCE = 1e-9


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isfinite(a) and abs(a - b) <= TOLERANCE


def _assert_matches(connection: duckdb.DuckDBPyConnection, release: Path) -> None:
    expected_rates = criterion_pass_rates(release)
    rows = connection.execute(
        "select criterion_id, task_id, dimension, weight, criterion_text, n_models, n_models_met, pass_rate,"
        " hardness_rank, is_met_by_reference, n_vote_pairs, n_split_pairs, split_vote_share"
        " from marts.criterion_pass_rates"
    ).fetchall()
    assert len(rows) == len(expected_rates)
    for criterion_id, *values in rows:
        e = expected_rates[criterion_id]
        assert tuple(values[:6]) == (e.task_id, e.dimension, e.weight, e.text, e.n_models, e.n_models_met), criterion_id
        assert _close(values[6], e.pass_rate), criterion_id
        assert tuple(values[7:11]) == (e.hardness_rank, e.is_met_by_reference, e.n_vote_pairs, e.n_split_pairs)
        assert _close(values[11], e.split_vote_share), criterion_id

    expected_cases = cases(release)
    rows = connection.execute(
        "select model_id, task_id, n_turns, reply_length, score, missed_criteria, is_recognized_not_routed,"
        " has_missed_harm_avoidance, is_empty_reply, n_missed, weight_missed from marts.cases"
    ).fetchall()
    assert len(rows) == len(expected_cases)
    for model_id, task_id, n_turns, length, score, missed, rnr, harm, empty, n_missed, weight_missed in rows:
        e = expected_cases[(model_id, task_id)]
        assert (n_turns, length, rnr, harm, empty) == (
            e.n_turns,
            e.reply_length,
            e.is_recognized_not_routed,
            e.has_missed_harm_avoidance,
            e.is_empty_reply,
        ), (model_id, task_id)
        assert _close(score, e.score), (model_id, task_id)
        assert [(m["criterion_id"], m["weight"]) for m in missed] == e.missed, (model_id, task_id)
        assert (n_missed, weight_missed) == (len(e.missed), sum(w for _, w in e.missed))

    # the mart's flag is the one recognized_not_routed counts
    (pooled,) = connection.execute("select n_not_routed from marts.recognized_not_routed where is_pooled").fetchone()
    (flagged,) = connection.execute(
        "select count(*) from marts.cases where is_ranked and is_recognized_not_routed"
    ).fetchone()
    assert pooled == flagged

    turns = pd.read_parquet(release / "turns.parquet")
    stored = connection.execute("select task_id, turn_index, role, turn_text from marts.conversation_turns").df()
    merged = turns.merge(stored, on=["task_id", "turn_index"], how="outer", indicator=True)
    assert (merged["_merge"] == "both").all() and len(merged) == len(turns)
    assert (merged["role_x"] == merged["role_y"]).all() and (merged["content"] == merged["turn_text"]).all()


def test_fixture_release_drill_down_marts_match_pandas(hostile_warehouse: Path, hostile_release: Path) -> None:
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        _assert_matches(connection, hostile_release)
        # the fixture exercises what the marts distinguish
        (empty, rnr, splits, ties) = connection.execute(
            "select (select count(*) from marts.cases where is_empty_reply),"
            " (select count(*) from marts.cases where is_recognized_not_routed),"
            " (select sum(n_split_pairs) from marts.criterion_pass_rates),"
            " (select count(*) from marts.criterion_pass_rates as p"
            "  inner join marts.criterion_pass_rates as q on p.dimension = q.dimension"
            "  and p.pass_rate = q.pass_rate and p.criterion_id < q.criterion_id)"
        ).fetchone()
        assert empty == 1 and rnr > 0 and splits > 0 and ties > 0


def test_synthetic_release_drill_down_marts_match_pandas(small_synthetic_warehouse: tuple[Path, Path]) -> None:
    release, warehouse = small_synthetic_warehouse
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        _assert_matches(connection, release)
        (n_hardest,) = connection.execute(
            "select count(*) from marts.criterion_pass_rates where hardness_rank <= 3"
        ).fetchone()
        assert n_hardest == 3 * 7


def test_the_documented_drill_down_queries_run(hostile_warehouse: Path) -> None:
    readme = (settings.PROJECT_ROOT / "docs" / "querying.md").read_text(encoding="utf-8")
    section = readme.split("## Reading the conversations behind the numbers", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sql", 1)[1].split("```", 1)[0]
    queries = [q.strip() for q in block.split(";") if q.strip()]
    assert len(queries) == 3
    with duckdb.connect(str(hostile_warehouse), read_only=True) as connection:
        connection.execute("use marts")  # as `distressbench sql` does: unqualified names are the marts
        (model_id,) = connection.execute(
            "select min(model_id) from marts.cases where is_ranked and is_recognized_not_routed"
        ).fetchone()
        hardest, not_routed, split = (
            connection.execute(q.replace("'model-01'", "?"), [model_id] if "'model-01'" in q else []).fetchall()
            for q in queries
        )
    assert len(hardest) == 3 * 7 and not_routed and split
