"""The Privacy level page: the thresholds and population (:mod:`.thresholds`), the runs
(:mod:`.runs`), the measurement's views (:mod:`.view`), the risk beyond class sizes
(:mod:`.risk`), and the page on a table opened in an engine (:mod:`.engine`)."""
