"""The Anonymize page: its controls (:mod:`.controls`) and their expected duration
(:mod:`.duration`), the runs and live updates (:mod:`.live`), the workspace fragment
(:mod:`.workspace`), the release made (:mod:`.release_view`), algorithms compared
(:mod:`.comparison`, :mod:`.risk_utility`), a release made again from its spec
(:mod:`.replay`), and the page on a table opened in an engine (:mod:`.engine`)."""
