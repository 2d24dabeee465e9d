"""Evaluations that write what a submission is made of (Inspect AI tasks)."""
