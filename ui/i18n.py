"""User-facing strings in English and Simplified Chinese.

One JSON catalogue per language in ``ui/locales/`` (``en.json``, ``zh.json``, plus
topic files such as ``learn_en.json`` merged into them) with the same keys (a test fails
when a key is missing in either). ``t(key, **params)`` formats the string of the current
language; a key missing in Chinese falls back to English, a missing key shows itself.

Nearly every place a page shows text renders it as Markdown (st.markdown, st.caption,
messages, labels, help, tabs, metrics), and the parameters are where a data file's
words — column names, values, file names — enter that text. So :func:`t` escapes every
text parameter with :func:`escape_md` (a column named ``![x](http://…)`` stays text: no
image fetched, no bold, no formula); the catalogue's own Markdown is kept. Where text goes
to a place that does not render Markdown (table cells, chart labels, file names, option
lists of select boxes) use :func:`t_plain`, which leaves the parameters as they are.
"""

from __future__ import annotations

import json
import re
import string
from functools import cache
from pathlib import Path
from typing import Any

import streamlit as st

from privcore.errors import PrivcoreError

LANGUAGES = {"en": "English", "zh": "简体中文"}
DEFAULT_LANGUAGE = "en"
_LOCALES = Path(__file__).resolve().parent / "locales"


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The strings of one language (cached for the process)."""
    merged: dict[str, str] = {}
    for path in sorted(_LOCALES.glob(f"*{lang}.json")):
        if path.name == f"{lang}.json" or path.name.endswith(f"_{lang}.json"):
            merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


def current_language() -> str:
    lang = st.session_state.get("lang", DEFAULT_LANGUAGE)
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


class _Lenient(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def format_text(template: str, params: dict[str, Any]) -> str:
    """``str.format_map`` that leaves unknown placeholders as they are."""
    try:
        return string.Formatter().vformat(template, (), _Lenient(params))
    except (ValueError, IndexError):
        return template


_MARKDOWN = re.compile(r"([\\`*_\[\]<>$~@])")
_AUTOLINK = re.compile(r"(?<=:)//|(?<=www)\.", re.IGNORECASE)
_BLOCK_MARKER = re.compile(r"^(\s*(?:\d+)?)([-+.)]|#+)(?=\s|$)")


def escape_md(text: Any) -> str:
    """Text safe to embed in Markdown (and Streamlit's directives): it renders as the
    same characters and nothing else — no emphasis, link, image, HTML, code, formula
    (``$``) or strikethrough; bare URLs, ``www.`` and e-mail addresses do not become
    links either. Line breaks become spaces, so a value cannot start a block
    of its own (a table needs a second line), and a leading list or heading marker is
    escaped."""
    flat = " ".join(str(text).splitlines()) if isinstance(text, str) else str(text)
    flat = _MARKDOWN.sub(r"\\\1", flat)
    flat = _AUTOLINK.sub(lambda m: "\\" + "\\".join(m.group(0)), flat)  # no bare-URL link
    return _BLOCK_MARKER.sub(lambda m: m.group(1) + "\\" + m.group(2), flat)


def t(key: str, **params: Any) -> str:
    """The string ``key`` in the current language, with ``params`` filled in; text
    parameters are escaped for Markdown (see the module docstring)."""
    return t_plain(key, **{k: escape_md(v) if isinstance(v, str) else v for k, v in params.items()})


def t_plain(key: str, **params: Any) -> str:
    """:func:`t` for places that do not render Markdown: parameters as given."""
    lang = current_language()
    template = catalogue(lang).get(key) or catalogue(DEFAULT_LANGUAGE).get(key) or key
    return format_text(template, params)


def has(key: str) -> bool:
    return key in catalogue(DEFAULT_LANGUAGE)


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
    return format_text(template, {k: _plain(v) for k, v in exc.params.items()})


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return value
