"""The Anonymize page: its controls (:mod:`.controls`) and their expected duration
(:mod:`.duration`), the runs and live updates (:mod:`.live`), the workspace fragment
(:mod:`.workspace`), the release made (:mod:`.release_view`), algorithms compared
(:mod:`.comparison`, :mod:`.risk_utility`), a release made again from its spec
(:mod:`.replay`), and the page on a table opened in an engine (:mod:`.engine`)."""

from ui.anonymize.comparison import compare, comparison_points
from ui.anonymize.duration import estimate, expected_nodes, expected_seconds, lattice_shape
from ui.anonymize.engine import render_table_release, table_workspace
from ui.anonymize.live import make, make_release, record_live, served_from_cache, settle_live
from ui.anonymize.release_view import render, report_of
from ui.common.workspace.actions import controls_for

__all__ = [
    "compare",
    "comparison_points",
    "controls_for",
    "estimate",
    "expected_nodes",
    "expected_seconds",
    "lattice_shape",
    "make",
    "make_release",
    "record_live",
    "render",
    "render_table_release",
    "report_of",
    "served_from_cache",
    "settle_live",
    "table_workspace",
]
