"""The Attack simulator page: the voter roll (:mod:`.roll`), the runs of its tabs
(:mod:`.runs`), the views of their results (:mod:`.view`), and the page on a table opened
in an engine (:mod:`.engine`)."""
