"""Split a release into a base (without one model) and a submission (that model).

The model's row, replies, judge labels and calibration labels move to the submission; the
base keeps everything else under a manifest of its own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from distressbench.release import contract
from distressbench.release.manifest import read_manifest, write_manifest
from release_factory import read_table, rewrite_table


def split_release(release: Path, model_id: str, base: Path, submission: Path, *, base_id: str) -> None:
    """Write `base` (release minus model_id, release id base_id) and `submission` (model_id's rows)."""
    shutil.copytree(release, base)
    old = read_manifest(base)
    write_manifest(base, base_id, synthetic=bool(old["synthetic"]), created_at=str(old["created_at"]))
    submission.mkdir(parents=True)
    models = read_table(release, "models")
    responses = read_table(release, "responses")
    is_model = pc.equal(models["model_id"], model_id)
    is_reply = pc.equal(responses["model_id"], model_id)
    replies = responses.filter(is_reply)["response_id"]
    pq.write_table(models.filter(is_model), submission / contract.file_name("models"))
    pq.write_table(responses.filter(is_reply), submission / contract.file_name("responses"))
    rewrite_table(base, "models", models.filter(pc.invert(is_model)))
    rewrite_table(base, "responses", responses.filter(pc.invert(is_reply)))
    for table in ("judge_labels", "calibration_labels"):
        data = read_table(release, table)
        ours = pc.is_in(data["response_id"], replies)
        pq.write_table(data.filter(ours), submission / contract.file_name(table))
        rewrite_table(base, table, data.filter(pc.invert(ours)))
