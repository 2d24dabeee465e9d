"""DistressBench warehouse: release contract, synthetic releases, gate, build and reports."""

__version__ = "0.1.0"
