"""`distressbench report`: the offline HTML report, one module per part: build writes the page
(`write_report`: its sections, tables and figures), changes its "Changes since" section, cases
its Cases section, leaderboard the words under the leaderboard."""

from __future__ import annotations

from distressbench.outputs.report.build import write_report

__all__ = ["write_report"]
