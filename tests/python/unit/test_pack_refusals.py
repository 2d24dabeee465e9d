"""`distressbench pack` refuses, by name, what it cannot make a release of: values that do not
fit their type, columns missing or extra, sources missing, doubled, unknown or unreadable, an
existing output folder and a bad release id."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

from distressbench.pack import PackRefused, pack
from fixtures.pack_sources import WRITERS, pack_refusals, write_source
from fixtures.releases.hand_built import build_tables

# --------------------------------------------------------------------------------------
# refusals


def test_a_value_that_does_not_fit_its_type_is_refused(tmp_path: Path) -> None:
    """weight 2.5 and 3e9 do not fit int32 (pandas floats and int64): never cast, named by key."""
    source = write_source(tmp_path / "source", WRITERS["pyarrow"])
    criteria = build_tables()["criteria"].to_pandas()
    criteria["weight"] = criteria["weight"].astype("float64")
    criteria.loc[1, "weight"] = 2.5
    criteria.loc[4, "weight"] = 3e9
    criteria.to_parquet(source / "criteria.parquet")
    ((check, table, column, count, message),) = pack_refusals(source, tmp_path / "out")
    assert (check, table, column, count) == ("value_fits_type", "criteria", "weight", 2)
    first, second = criteria["criterion_id"][1], criteria["criterion_id"][4]
    assert message == (
        f"2 values of criteria.weight in criteria.parquet do not fit int32 (found double): "
        f'"2.5" (row 1, criterion_id "{first}"), "3000000000.0" (row 4, criterion_id "{second}")'
    )


def test_csv_text_that_is_not_a_number_or_a_bool_is_refused(tmp_path: Path) -> None:
    source = write_source(tmp_path / "source", WRITERS["csv"])
    turns = (source / "turns.csv").read_text(encoding="utf-8").splitlines()
    turns[1] = turns[1].replace(",0,", ",zero,", 1)
    (source / "turns.csv").write_text("\n".join(turns) + "\n", encoding="utf-8")
    labels = (source / "judge_labels.csv").read_text(encoding="utf-8").replace("true", "yes", 1)
    (source / "judge_labels.csv").write_text(labels, encoding="utf-8")
    failures = pack_refusals(source, tmp_path / "out")
    assert [(c, t, col, n) for c, t, col, n, _ in failures] == [
        ("value_fits_type", "judge_labels", "met", 1),
        ("value_fits_type", "turns", "turn_index", 1),
    ]
    assert '"yes" (row ' in failures[0][4] and '"zero" (row 0, task_id ' in failures[1][4]


def test_a_column_of_a_type_that_cannot_hold_the_contracts_is_refused(tmp_path: Path) -> None:
    source = write_source(tmp_path / "source", WRITERS["pyarrow"])
    models = build_tables()["models"]
    pq.write_table(models.set_column(0, "model_id", pa.array(range(models.num_rows))), source / "models.parquet")
    ((check, table, column, count, message),) = pack_refusals(source, tmp_path / "out")
    assert (check, table, column, count) == ("schema_types", "models", "model_id", 1)
    assert message == "models.parquet has 1 column of the wrong type: model_id is int64, expected string"


def test_missing_and_extra_columns_are_refused(tmp_path: Path) -> None:
    source = write_source(tmp_path / "source", WRITERS["jsonl"])
    rows = [json.loads(line) for line in (source / "tasks.jsonl").read_text(encoding="utf-8").splitlines()]
    text = "".join(json.dumps({**{k: v for k, v in r.items() if k != "subcategory"}, "note": 1}) + "\n" for r in rows)
    (source / "tasks.jsonl").write_text(text, encoding="utf-8")
    ((check, table, column, count, message),) = pack_refusals(source, tmp_path / "out")
    assert (check, table, column, count) == ("schema_columns", "tasks", "subcategory, note", 2)
    assert message.startswith(
        "tasks.jsonl lacks column subcategory and has extra column note; the contract's columns of tasks are task_id, "
    )


def test_missing_doubled_and_unknown_sources_are_refused(tmp_path: Path) -> None:
    source = write_source(tmp_path / "source", WRITERS["pyarrow"])
    (source / "turns.parquet").unlink()
    shutil.copyfile(source / "models.parquet", source / "scores.parquet")
    pa_csv.write_csv(build_tables()["tasks"], source / "tasks.csv")
    ((check, table, column, count, message),) = pack_refusals(source, tmp_path / "out")
    assert (check, count) == ("pack_sources", 3)
    for named in (
        "turns (required, no source)",
        'tasks (given 2 times: "tasks.csv", "tasks.parquet")',
        '"scores.parquet" (not a table of the contract)',
    ):
        assert named in message


def test_an_unreadable_source_is_refused_by_name(tmp_path: Path) -> None:
    source = write_source(tmp_path / "source", WRITERS["jsonl"])
    with (source / "responses.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"response_id": 7, "task_id": "x", "model_id": "y", "content": "z"}\n')
    ((check, table, _, _, message),) = pack_refusals(source, tmp_path / "out")
    assert (check, table) == ("source_readable", "responses")
    assert message.startswith("responses.jsonl cannot be read as jsonl: ")


def test_an_existing_out_folder_and_a_bad_release_id_are_refused(tmp_path: Path) -> None:
    source = write_source(tmp_path / "source", WRITERS["pyarrow"])
    (tmp_path / "taken").mkdir()
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    for taken in ("taken", "broken"):
        with pytest.raises(PackRefused) as caught:
            pack(source, tmp_path / taken)
        assert [c.check for c in caught.value.failures] == ["out_dir_new"]
    assert [c[0] for c in pack_refusals(source, tmp_path / "out", release_id="../up")] == ["release_id"]
