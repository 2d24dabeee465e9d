"""Inspect AI's entry point (pyproject.toml): importing it registers the task
`distressbench/crisis_support` and the offline demo's model provider `distressbench`
(`distressbench/scripted`, `distressbench/scripted-judge`)."""

from distressbench.evals.crisis_support import crisis_support
from distressbench.evals.scripted import scripted

__all__ = ["crisis_support", "scripted"]
