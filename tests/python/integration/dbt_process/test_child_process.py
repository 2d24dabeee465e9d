"""The child-process protocol (dbt.child_process) with a child that echoes: orders and answers
one JSON line each, a child that ends without answering, and one that ends when its orders
close."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from distressbench.dbt.child_process import Child

pytestmark = pytest.mark.integration  # each test starts a child process

# a child that answers each order with its double, and ends at the order "end" without answering
ECHO = """
import sys
from distressbench.dbt.child_process import Answers, end_with_parent

end_with_parent(int(sys.argv[1]))
answers = Answers(int(sys.argv[2]))
for order in answers.orders():
    if order == "end":
        sys.exit(3)
    answers.answer({"twice": order * 2, "extra": sys.argv[3:]})
"""


def _echo(tmp_path: Path) -> Child:
    (tmp_path / "echo_child.py").write_text(ECHO, encoding="utf-8")
    env = {"PYTHONPATH": f"{tmp_path}:{':'.join(sys.path)}"}
    return Child.start("echo_child", ["a", "b"], cwd=tmp_path, env=env)


def test_each_order_gets_its_answer_and_a_missing_answer_means_the_child_ended(tmp_path: Path) -> None:
    child = _echo(tmp_path)
    try:
        child.send(21)
        assert child.receive() == {"twice": 42, "extra": ["a", "b"]}
        child.send(["x"])
        assert child.receive() == {"twice": ["x", "x"], "extra": ["a", "b"]}
        child.send("end")
        assert child.receive() is None
        assert child.exit_code() == 3 and not child.running()
        child.send(1)  # to a child that has ended: nothing, and no error
    finally:
        child.stop()


def test_a_child_whose_orders_close_ends_by_itself(tmp_path: Path) -> None:
    child = _echo(tmp_path)
    try:
        assert child.running()
        child.close_orders(wait=True)
        assert child.exit_code() == 0
    finally:
        child.stop()
