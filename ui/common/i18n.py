"""User-facing strings in English and Simplified Chinese, in the session's language.

The catalogue itself (one JSON file per language and topic in ``privcore/words/locales/``, the same
keys in both; a test fails when a key is missing in either) is read by
:mod:`privcore.words.catalog`, which needs no Streamlit. ``t(key, **params)`` formats the string of
the current language; a key missing in Chinese falls back to English, a missing key
shows itself.

Nearly every place a page shows text renders it as Markdown (st.markdown, st.caption,
messages, labels, help, tabs, metrics), and the parameters are where a data file's
words — column names, values, file names — enter that text. So :func:`t` escapes every
text parameter with :func:`escape_md` (a column named ``![x](http://…)`` stays text: no
image fetched, no bold, no formula); the catalogue's own Markdown is kept. Where text goes
to a place that does not render Markdown (table cells, chart labels, file names, option
lists of select boxes) use :func:`t_plain`, which leaves the parameters as they are.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable
from typing import Any

import streamlit as st

from privcore.errors import PrivcoreError
from privcore.words.catalog import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    catalogue,
    escape_md,
    format_text,
    has,
    text,
)

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "catalogue",
    "current_language",
    "error_text",
    "escape_md",
    "format_text",
    "has",
    "labels",
    "t",
    "t_plain",
]


def current_language() -> str:
    lang = st.session_state.get("lang", DEFAULT_LANGUAGE)
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def t(key: str, **params: Any) -> str:
    """The string ``key`` in the current language, with ``params`` filled in; text
    parameters are escaped for Markdown (see the module docstring)."""
    return t_plain(key, **{k: escape_md(v) if isinstance(v, str) else v for k, v in params.items()})


def t_plain(key: str, **params: Any) -> str:
    """:func:`t` for places that do not render Markdown: parameters as given."""
    return text(key, current_language(), **params)


def labels(options: Iterable[Any], word: Callable[[Any], str]) -> Callable[[Any], str]:
    """A ``format_func`` for a select box or radio: each option's label worded now, in
    the session's language (a lambda calling :func:`t` would be worded whenever
    Streamlit calls it, possibly outside the session, in another language)."""
    table = {option: word(option) for option in options}
    return lambda option: table.get(option, str(option))


def error_text(exc: PrivcoreError) -> str:
    """A privcore error in the current language: by its code when translated, else its
    message. One code may have several wordings (``error.<code>`` and
    ``error.<code>.<variant>``, e.g. the ways rows fail to line up): the one whose
    placeholders the error carries, the most specific first."""
    base = f"error.{exc.code}"
    fitting = []
    for key, template in catalogue(current_language()).items():
        if key != base and not key.startswith(base + "."):
            continue
        needed = {name for _, name, _, _ in string.Formatter().parse(template) if name}
        if needed <= set(exc.params):  # else it needs a value this error does not carry
            fitting.append((len(needed), key, template))
    if not fitting:
        return exc.message
    _, _, template = max(fitting)
    params = dict(exc.params)
    if isinstance(params.get("lower"), (list, tuple)):  # what to lower: keys of words
        params["lower"] = [t_plain(f"cost.lower.{key}") for key in params["lower"]]
    return format_text(template, {k: _plain(v) for k, v in params.items()})


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return value
