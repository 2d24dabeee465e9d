"""Calibrated synthetic releases that follow the contract."""
