"""The Report page: the readiness report's view (:mod:`.view`), its thresholds
(:mod:`.thresholds`), the runs (:mod:`.runs`), and the page on a table opened in an
engine (:mod:`.engine`)."""

from ui.report.thresholds import threshold_controls
from ui.report.view import html_bytes, show_report

__all__ = ["html_bytes", "show_report", "threshold_controls"]
