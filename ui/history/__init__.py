"""The History page in words: the tables of labels (:mod:`.labels`), the words of a
run's parameters and results (:mod:`.words`), the run list, a run's details and the
comparison (:mod:`.view`), and the parts of the page that read the history (:mod:`.page`)."""

from ui.history.view import (
    compare,
    header,
    release_line,
    release_names,
    run_json,
    run_list,
    show_comparison,
    show_details,
    table,
)
from ui.history.words import (
    Line,
    code_word,
    describe,
    error_sentence,
    field_label,
    kind_label,
    page_label,
    status_label,
    value_text,
)

__all__ = [
    "Line",
    "code_word",
    "compare",
    "describe",
    "error_sentence",
    "field_label",
    "header",
    "kind_label",
    "page_label",
    "release_line",
    "release_names",
    "run_json",
    "run_list",
    "show_comparison",
    "show_details",
    "status_label",
    "table",
    "value_text",
]
