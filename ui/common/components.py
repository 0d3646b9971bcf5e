"""Small display pieces shared by the pages: verdict cards and explained metrics.

One vocabulary everywhere: pass (green), fail (red), warning (amber), each with the
number and the threshold ("k = 3 < 5"); information (blue) for a figure no threshold
judges. User-supplied text goes through st.markdown's escaping or into plain text
elements — never ``unsafe_allow_html``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from ui.common.i18n import escape_md, labels, t, t_plain

__all__ = [
    "bounded_slider",
    "choice_radio",
    "escape_md",
    "explained_metric",
    "fmt",
    "safe_bounds",
    "verdict_card",
    "verdict_row",
]

_ICON = {
    "pass": ":material/check_circle:",
    "fail": ":material/cancel:",
    "warn": ":material/warning:",
    "info": ":material/info:",  # a figure shown for information: no threshold judged it
}
_COLOUR = {"pass": "green", "fail": "red", "warn": "orange", "info": "blue"}


def verdict_card(title: str, value: str, status: str, detail: str = "") -> None:
    """A bordered card: title, a big coloured value, and a one-line detail — all three
    plain text (they often name columns: pass ``t_plain`` texts), escaped here."""
    with st.container(border=True):
        st.caption(escape_md(title))
        st.markdown(f":{_COLOUR[status]}[{_ICON[status]} **{escape_md(value)}**]")
        if detail:
            st.caption(escape_md(detail))


def verdict_row(cards: Sequence[tuple[str, str, str, str]], per_row: int = 4) -> None:
    """Cards laid out in rows of ``per_row`` columns."""
    for start in range(0, len(cards), per_row):
        columns = st.columns(per_row)
        for column, card in zip(columns, cards[start : start + per_row], strict=False):
            with column:
                verdict_card(*card)


def fmt(value: Any, digits: int = 3) -> str:
    """A number for display; None/NaN as an em dash."""
    if value is None:
        return "—"
    if isinstance(value, float):
        if value != value:  # NaN
            return "—"
        if value == float("inf"):
            return "∞"
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def explained_metric(column, label: str, value: Any, help_key: str, digits: int = 3) -> None:
    """st.metric with its plain-language explanation as help."""
    column.metric(label, fmt(value, digits), help=t(help_key))


#: How the headline loss of each kind of release is labelled and explained.
_HEADLINE = {
    "gcp": ("GCP", "explain.gcp"),
    "ncp": ("GCP", "explain.gcp"),
    "distortion": ("loss.distortion", "explain.distortion"),
    "marginal_distance": ("loss.marginal_distance", "explain.marginal_distance"),
}


def loss_name(name: str) -> str:
    """The words for a headline loss figure (``gcp``, ``distortion``,
    ``marginal_distance``) in the page's language."""
    label, _ = _HEADLINE[name]
    return label if label == "GCP" else t_plain(label)


def loss_headline_metric(column, headline: dict) -> None:
    """The one loss figure of a release that fits its kind (GCP of a generalization,
    the distortion of a perturbed release, the marginal distance of a synthetic one:
    ``Release.loss_headline``), labelled and explained in the page's language."""
    label, help_key = _HEADLINE[headline["name"]]
    explained_metric(column, label if label == "GCP" else t(label), headline["value"], help_key)


def safe_bounds(low: Any, high: Any, value: Any) -> tuple[Any, Any, Any]:
    """Bounds computed from the data or from this installation's limits, made valid for
    a widget: ``high`` raised to ``low`` when it fell below it, and ``value`` clamped
    into ``[low, high]``."""
    high = max(low, high)
    return low, high, min(max(value, low), high)


def choice_radio(
    label: str,
    options: Sequence[Any],
    word: Callable[[Any], str] | str,
    *,
    key: str,
    where: Any = None,
) -> Any:
    """A row of radio buttons (in ``where``, a column or container; the page by default)
    labelled ``label``: one per option, shown as ``word(option)`` (worded now:
    :func:`ui.common.i18n.labels`), the choice kept under ``key``. ``word`` may be the
    catalogue's key prefix of the options' words instead: option ``o`` is then worded
    ``t(word + o)``. Returns the option chosen."""
    if isinstance(word, str):
        prefix = word

        def word(option: Any) -> str:
            return t(f"{prefix}{option}")

    return (st if where is None else where).radio(
        label, options, horizontal=True, format_func=labels(options, word), key=key
    )


def bounded_slider(
    label: str,
    low: Any,
    high: Any,
    value: Any,
    step: Any = None,
    *,
    key: str | None = None,
    where: Any = None,
    fixed: str | None = None,
    **kwargs: Any,
) -> Any:
    """``st.slider`` (in ``where``, a column or container; the page by default) whose
    bounds come from the data or from a limit (a table's rows, ``PRIVCORE_MAX_ROLL``):
    the default is clamped into the bounds, the step is at most the range, and a value
    the widget kept that the bounds no longer allow is dropped. When the bounds meet
    (one value is possible, which Streamlit refuses as a slider) a caption says that
    value instead — ``fixed``, or the label and the value — and it is returned."""
    where = st if where is None else where
    low, high, value = safe_bounds(low, high, value)
    if key is not None and key in st.session_state:
        kept = st.session_state[key]
        if not isinstance(kept, (int, float)) or not low <= kept <= high:
            del st.session_state[key]
    if low == high:
        where.caption(fixed or t_plain("widget.fixed", label=label, value=fmt(low)))
        return low
    if step is not None and step > high - low:
        step = high - low
    return where.slider(label, low, high, value, step, key=key, **kwargs)
