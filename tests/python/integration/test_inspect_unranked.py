"""Like ranked with like, end to end: docs/inspect.md's offline demo (the scripted model judged
by the scripted judge, imported, submitted, built) leaves the base release's ranks, letters,
rank bounds and headline metrics exactly as they were, and shows the scripted model apart,
with its score, interval, judge and the reason it is unranked. The same model imported with
`--judge-id` set to the base's judges' ids is ranked among them."""

from __future__ import annotations

import contextlib
import io
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from distressbench.evals.import_inspect import import_inspect
from distressbench.outputs.tables.load import load_table
from distressbench.outputs.tables.specs import T2
from distressbench.publish.pipeline import build_release
from distressbench.submit import submit
from fixtures.releases.hand_built import MODEL_IDS, make_release
from fixtures.wording import WORDING
from integration.test_inspect import run_inspect_cli

SCRIPTED = "distressbench/scripted"
SCRIPTED_JUDGE = "distressbench/scripted-judge"
RANKING_COLUMNS = "score, ci_low, ci_high, rank, ranking_position, letters, rank_upper_bound"


@dataclass(frozen=True)
class Demo:
    base_file: Path
    derived_file: Path
    submit_output: str
    comparable_file: Path


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    """The demo as docs/inspect.md runs it, on the fixture release; then the same log imported
    with --judge-id (the base's primary judge), as its section on comparable submissions says."""
    root = tmp_path_factory.mktemp("inspect-unranked")
    base = make_release(root / "release", release_id="fixture-unranked")
    log = run_inspect_cli("distressbench/crisis_support", "release", root / "logs", root)
    import_inspect([log], base, root / "submission")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        derived = submit(base, root / "submission", root / "derived").out_dir
    warehouse = root / "warehouse" / "distressbench.duckdb"
    base_file = shutil.copyfile(build_release(base, warehouse)[0], root / "base.duckdb")
    derived_file = shutil.copyfile(build_release(derived, warehouse)[0], root / "derived.duckdb")
    import_inspect([log], base, root / "comparable-submission", judge_id="judge-a")
    comparable = submit(base, root / "comparable-submission", root / "comparable", echo=False).out_dir
    comparable_file, _ = build_release(comparable, warehouse)
    return Demo(base_file, derived_file, printed.getvalue(), comparable_file)


def _rows(database: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute(sql).fetchall()


def test_the_base_ranks_letters_bounds_and_headlines_are_exactly_as_they_were(demo: Demo) -> None:
    ranking = f"select model_id, {RANKING_COLUMNS} from marts.model_scores where model_id != ? order by model_id"
    headlines = "select metric, value, ci_low, ci_high from marts.headline_metrics order by metric"
    rank_stats = "select * exclude (release_id) from marts.model_rank_stats order by model_id"
    pairs = "select * exclude (release_id) from marts.model_pair_differences order by model_id, other_model_id"
    with (
        duckdb.connect(str(demo.base_file), read_only=True) as before,
        duckdb.connect(str(demo.derived_file), read_only=True) as after,
    ):
        for sql, parameters in ((ranking, [SCRIPTED]), (headlines, []), (rank_stats, []), (pairs, [])):
            want = before.execute(sql, parameters).fetchall()
            assert want, sql
            assert after.execute(sql, parameters).fetchall() == want, sql
    ranked = _rows(demo.base_file, "select model_id from marts.model_scores where rank is not null order by 1")
    assert [m for (m,) in ranked] == sorted(MODEL_IDS)


def test_the_scripted_model_is_shown_apart_with_its_judge_and_reason(demo: Demo) -> None:
    with duckdb.connect(str(demo.derived_file), read_only=True) as connection:
        ((row),) = connection.execute(
            "select kind, is_ranked, score, ci_low, ci_high, rank, ranking_position, letters, rank_upper_bound,"
            " judge_ids, unranked_reason, is_below_judge_floor from marts.model_scores where model_id = ?",
            [SCRIPTED],
        ).fetchall()
    kind, is_ranked, score, low, high, rank, position, letters, bound, judges, reason, below_floor = row
    assert (kind, is_ranked, rank, position, letters, bound) == ("model", False, None, None, None, None)
    assert low is not None and high is not None and low <= score <= high
    assert judges == SCRIPTED_JUDGE
    assert reason == f"judged by {SCRIPTED_JUDGE}, not by the primary judge of the release, judge-a"
    assert below_floor  # no clinician label on its replies: the judge is not shown calibrated there
    ranked = _rows(demo.derived_file, "select model_id from marts.model_rank_stats order by 1")
    assert [m for (m,) in ranked] == sorted(MODEL_IDS)


def test_submit_says_in_one_line_that_the_judges_differ(demo: Demo) -> None:
    notes = [line for line in demo.submit_output.splitlines() if line.startswith("note:")]
    assert notes == [
        f'note: the submission is judged by "{SCRIPTED_JUDGE}", not by the base release\'s ranking judge(s) '
        '"judge-a", "judge-b\'": its models will be shown unranked, with their score and judge '
        "(docs/inspect.md says how to make a submission comparable)"
    ]


def test_t2_shows_the_unranked_model_below_the_ranked_ones_with_its_judge_and_reason(demo: Demo) -> None:
    with duckdb.connect(str(demo.derived_file), read_only=True) as connection:
        table = load_table(connection, T2.worded(WORDING))
    groups = table.column_values("row_group")
    assert groups == ["model"] * len(MODEL_IDS) + ["unranked", "reference"]
    records = table.records()
    assert records[len(MODEL_IDS)]["model_id"] == SCRIPTED
    cells = table.cells()[len(MODEL_IDS)]
    assert SCRIPTED_JUDGE in cells and any("not by the primary judge of the release" in c for c in cells)


def test_the_same_model_judged_under_the_base_judge_id_is_ranked_among_the_others(demo: Demo) -> None:
    rows = _rows(demo.comparable_file, "select model_id, is_ranked, rank, letters from marts.model_scores")
    ranked = {model_id: (rank, letters) for model_id, is_ranked, rank, letters in rows if is_ranked}
    assert ranked.keys() == {*MODEL_IDS, SCRIPTED}
    assert all(rank is not None and letters for rank, letters in ranked.values())
