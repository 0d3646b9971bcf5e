"""The workspace: the shelf of releases, the release picker of the assessing pages, the
results each page keeps per release, how rows are paired, and the verdicts' actions.

- Every release is a named :class:`~ui.common.state.ShelfRelease` (made on the Anonymize
  page, made again from a spec, uploaded, or a loaded data set with the original's
  columns): :mod:`.shelf`.
- The Privacy level, Attack and Report pages start with :func:`assessing_page`: one
  picker naming the release they assess (the same one on the three pages).
- A result is kept per page and per release with the parameters it was computed for
  (:func:`keep_result`); :func:`result_header` names both and says "out of date" when the
  release's name or the page's parameters changed since. A page never shows the result
  of another release than the one its picker names: :mod:`.results`.
- Rows of a release read from a file may not line up with the original's:
  :func:`alignment_controls` offers a key column, the exact matching of small tables,
  or the figures that need no pairing; :func:`release_inputs` builds the run's inputs:
  :mod:`.pairing`.
- A failing verdict carries a fix (:func:`action_button`): it sets the Anonymize page's
  controls and runs them there: :mod:`.actions`.
- Names of releases, algorithms and choices in words: :mod:`.names`.
"""

from ui.common.workspace.actions import (
    ACTION_FIELDS,
    DEFAULTS,
    REQUESTED,
    REVIEW,
    action_button,
    action_text,
    controls_for,
    try_action,
    verdict_action,
    widget_key,
)
from ui.common.workspace.names import (
    algorithm_title,
    choice_title,
    default_name,
    file_stem,
    now_hhmm,
)
from ui.common.workspace.pairing import (
    PAIRINGS,
    alignment_controls,
    paired_frame,
    release_inputs,
    request_alignment,
    rows_line_up,
)
from ui.common.workspace.results import (
    RESULTS,
    changes,
    describe_params,
    guard_run,
    history_note,
    keep_result,
    latest_result,
    result_header,
    result_of,
)
from ui.common.workspace.shelf import (
    RELEASE_TYPES,
    assessing_page,
    describe_release,
    note_dropped,
    note_release_columns,
    pick_release,
    shelf_view,
    shelve_frame,
    shelve_made,
)

__all__ = [
    "ACTION_FIELDS",
    "DEFAULTS",
    "PAIRINGS",
    "RELEASE_TYPES",
    "REQUESTED",
    "RESULTS",
    "REVIEW",
    "action_button",
    "action_text",
    "algorithm_title",
    "alignment_controls",
    "assessing_page",
    "changes",
    "choice_title",
    "controls_for",
    "default_name",
    "describe_params",
    "describe_release",
    "file_stem",
    "guard_run",
    "history_note",
    "keep_result",
    "latest_result",
    "note_dropped",
    "note_release_columns",
    "now_hhmm",
    "paired_frame",
    "pick_release",
    "release_inputs",
    "request_alignment",
    "result_header",
    "result_of",
    "rows_line_up",
    "shelf_view",
    "shelve_frame",
    "shelve_made",
    "try_action",
    "verdict_action",
    "widget_key",
]
