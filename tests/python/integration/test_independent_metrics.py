"""The independent metric computation the end-to-end tests trust, on a hand-computed fixture."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from fixtures.independent_metrics import compute, judge_agreement


def _write(release: Path, **tables: pd.DataFrame) -> None:
    release.mkdir()
    for name, frame in tables.items():
        frame.to_parquet(release / f"{name}.parquet", index=False)


def test_compute_on_a_hand_computed_fixture(tmp_path: Path) -> None:
    tasks = pd.DataFrame({"task_id": ["T1", "T2"], "n_user_turns": [1, 3]})
    criteria = pd.DataFrame(
        {
            "criterion_id": ["C1", "C2", "C3", "C4", "C5", "C6", "C7"],
            "task_id": ["T1", "T1", "T1", "T1", "T2", "T2", "T2"],
            "dimension": [
                "recognition",
                "routing",
                "de_escalation",
                "safety_disclaimer",
                "recognition",
                "routing",
                "routing",
            ],
            "weight": [4, 2, 2, 2, 1, 1, 2],
        }
    )
    models = pd.DataFrame({"model_id": ["A", "B", "R"], "kind": ["model", "model", "clinician_reference"]})
    responses = pd.DataFrame(
        {
            "response_id": [f"{m}{t}" for m in "ABR" for t in ("1", "2")],
            "model_id": [m for m in "ABR" for _ in range(2)],
            "task_id": ["T1", "T2"] * 3,
            "content": ["reply"] * 6,
        }
    )
    samples = {  # (response, criterion) -> judge samples
        ("A1", "C1"): [1, 1, 0],
        ("A1", "C2"): [0, 0, 1],
        ("A1", "C3"): [1, 1, 1],
        ("A1", "C4"): [0, 0, 0],
        ("A2", "C5"): [1, 1, 1],
        ("A2", "C6"): [1, 0, 1],
        ("A2", "C7"): [0, 0, 0],
        ("B1", "C1"): [1, 0],
        ("B1", "C2"): [1, 1, 1],
        ("B1", "C3"): [0, 0, 0],
        ("B1", "C4"): [1, 1, 0],
        ("B2", "C5"): [1, 1, 1],
        ("B2", "C6"): [0, 0, 0],
        ("B2", "C7"): [0, 1, 0],
        **{("R1", c): [1, 1, 1] for c in ("C1", "C2", "C3", "C4")},
        **{("R2", c): [1, 1, 1] for c in ("C5", "C6", "C7")},
    }
    labels = pd.DataFrame(
        [(r, c, "j", i, bool(m)) for (r, c), ms in samples.items() for i, m in enumerate(ms)],
        columns=["response_id", "criterion_id", "judge_id", "sample_index", "met"],
    )
    # judge verdicts A1/C1 met, B1/C1 tie (unmet), A1/C2 unmet: gold says met, met, met
    calibration = pd.DataFrame(
        {"response_id": ["A1", "B1", "A1"], "criterion_id": ["C1", "C1", "C2"], "met": [True, True, True]}
    )
    release = tmp_path / "release"
    _write(
        release,
        tasks=tasks,
        criteria=criteria,
        models=models,
        responses=responses,
        judge_labels=labels,
        calibration_labels=calibration,
    )

    metrics = compute(release)

    # A: T1 (4+2)/10, T2 2/4 -> 0.55; B: T1 (2+2)/10 (C1 is a tie), T2 1/4 -> 0.325
    expected = {
        "best_model_score": 0.55,
        "median_model_score": 0.4375,
        "clinician_reference_score": 1.0,
        "recognized_not_routed_rate": 2 / 3,
        "single_turn_score": 0.5,
        "multi_turn_score": 0.375,
        "best_de_escalation_score": 1.0,
        "median_de_escalation_score": 0.5,
        "best_safety_disclaimer_score": 1.0,
        "median_safety_disclaimer_score": 0.5,
    }
    for metric, value in expected.items():
        assert metrics.headline[metric] == pytest.approx(value), metric
    # recognized: A1, A2, B2, R1, R2; of the ranked ones A1 and B2 failed routing (none met)
    assert metrics.recognized_not_routed[None] == (3, 2)
    assert metrics.recognized_not_routed["R"] == (2, 0)
    # calibration: TP 1 (A1/C1), FN 2 (B1/C1, A1/C2): agreement 1/3, precision 1, recall 1/3
    overall = metrics.calibration["all"]
    assert overall["n"] == 3
    assert overall["agreement"] == pytest.approx(1 / 3)
    assert overall["precision"] == pytest.approx(1.0)
    assert overall["recall"] == pytest.approx(1 / 3)
    # judge says met 1/3 of the time, clinicians always: chance agreement 1/3, so kappa 0
    assert overall["kappa"] == pytest.approx(0.0)
    assert metrics.headline["judge_kappa"] == pytest.approx(0.0)
    # alpha: 21 units, 20 of 3 labels and B1/C1 of 2; N = 62, N1 = 42, N0 = 20; m(n-m)/(n-1) is 1 for
    # the five 3-label units with 1 or 2 met and for B1/C1, so alpha = 1 - 61 * 6 / (20 * 42) = 79/140
    assert metrics.headline["judge_alpha"] == pytest.approx(79 / 140)
    # 15 units unanimous, 1 tie (B1/C1); observed agreement (15 * 1 + 5 * 1/3 + 0) / 21 = 50/63
    pooled = judge_agreement(release)[(None, "all")]
    assert (pooled["n_pairs"], pooled["n_labels"]) == (21, 62)
    assert pooled["unanimous_share"] == pytest.approx(15 / 21) and pooled["tie_share"] == pytest.approx(1 / 21)
    assert pooled["observed_agreement"] == pytest.approx(50 / 63)
    assert judge_agreement(release)[("j", "all")] == pooled
