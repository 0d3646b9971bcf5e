"""Names in words: a release's default name and file name, an algorithm's or a
registry choice's title in the page's language."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from privcore.runs import AnonymizeRequest
from privcore.runs.registry import ALGORITHMS
from ui.common.i18n import t_plain


def now_hhmm() -> str:
    return dt.datetime.now().strftime("%H:%M")


def choice_title(key: str, fallback: str) -> str:
    """The words of a registry entry or choice in the page's language: the catalogue's
    ``key`` when it has one, else ``fallback`` (the registry's own title, or the choice)."""
    text = t_plain(key)
    return fallback if text == key else text


def diner_name(name: str) -> str:
    """A diner of the dinner story in the page's language (张三 for Zhang San)."""
    return choice_title("dp.diner_" + "_".join(name.lower().split()), name)


def algorithm_title(name: str) -> str:
    entry = ALGORITHMS.get(name)
    return choice_title(f"alg.{name}", entry.title if entry is not None else str(name))


def default_name(release: Any, made_at: str) -> str:
    """A release's default name: its algorithm, the models it was made with, its
    suppression limit when it is not the default one, and the time ("Mondrian k=5 l=2 ·
    14:32", "Datafly k=5 sup=0% · 14:33")."""
    parts = [algorithm_title(str(release.algorithm))]
    for model in release.params.get("constraints", []):
        for letter in ("k", "l", "t"):
            if letter in model:
                parts.append(f"{letter}={float(model[letter]):g}")
    suppression = float(release.params.get("max_suppression") or 0.0)
    if abs(suppression - AnonymizeRequest.max_suppression) > 1e-12:
        parts.append(f"sup={suppression:.0%}")
    return f"{' '.join(parts)} · {made_at}"


def file_stem(name: str) -> str:
    """A release's name as a file name: letters, digits, dots, dashes and underscores."""
    stem = re.sub(r"[^\w.=-]+", "_", name, flags=re.UNICODE).strip("._")
    return stem[:80] or "release"
