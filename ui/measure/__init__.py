"""The Privacy level page: the thresholds and population (:mod:`.thresholds`), the runs
(:mod:`.runs`), the measurement's views (:mod:`.view`), the risk beyond class sizes
(:mod:`.risk`), and the page on a table opened in an engine (:mod:`.engine`)."""

from ui.measure.thresholds import chosen_by_default, population_input, threshold_inputs
from ui.measure.view import EXPLAINED, pl_heatmap, render

__all__ = [
    "EXPLAINED",
    "chosen_by_default",
    "pl_heatmap",
    "population_input",
    "render",
    "threshold_inputs",
]
