"""Inspect AI's entry point (pyproject.toml): importing it registers `distressbench/crisis_support`."""

from distressbench.evals.crisis_support import crisis_support

__all__ = ["crisis_support"]
