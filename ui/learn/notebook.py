"""The download under each lesson of the Learn page: the lesson as a Jupyter notebook, in
the page's language.

The notebooks are files of the repository, ``docs/notebooks/lessons/lesson-<N>-<slug>.
<lang>.ipynb``, written by ``docs/notebooks/lessons/make_lessons.py``: the lesson's
computation redone with privcore on the same data, its formulas and its exercise, with a
cell that checks the answer. The page reads them from the repository it runs from; where
they were not shipped with the app (an installation without ``docs/``), the page says so
instead of offering the download.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.common.i18n import current_language, t

#: The folder of the lesson notebooks, found from this file: ui/learn/ → the repository.
NOTEBOOKS = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "lessons"


def notebook_path(number: int, lang: str, folder: Path | None = None) -> Path | None:
    """The notebook of lesson ``number`` in ``lang`` ("en" or "zh") in ``folder``
    (:data:`NOTEBOOKS` by default), or None when there is none (``lesson-1-*`` does not
    match ``lesson-10-…``)."""
    found = sorted((folder or NOTEBOOKS).glob(f"lesson-{number}-*.{lang}.ipynb"))
    return found[0] if found else None


def notebook_download(number: int, folder: Path | None = None) -> None:
    """Below lesson ``number``: a caption naming the notebook and the button that
    downloads it in the page's language (read from ``folder``, :data:`NOTEBOOKS` by
    default); an st.info when the file is missing or cannot be read."""
    st.divider()
    path = notebook_path(number, current_language(), folder)
    try:
        content = path.read_bytes() if path is not None else None
    except OSError:
        content = None
    if path is None or content is None:
        st.info(t("learn.notebook_missing", number=number), icon=":material/info:")
        return
    st.caption(t("learn.notebook_caption", file=path.name))
    st.download_button(
        t("learn.notebook_download"),
        data=content,
        file_name=path.name,
        mime="application/x-ipynb+json",
        icon=":material/download:",
        key=f"learn_l{number}_notebook",
        on_click="ignore",
    )
