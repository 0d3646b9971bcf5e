"""Write the notebooks of the Learn page's lessons: one per lesson and language,
``lesson-<N>-<slug>.<lang>.ipynb`` beside this script (nbformat 4.5, no outputs).

Each lesson is a function of :mod:`anonymization` (lessons 1–4) or
:mod:`dp_and_measures` (lessons 5–8) that adds its cells to a
:class:`cells.LessonNotebook`: the same code in both languages, the words around it in
English or Chinese. The Learn page offers the file of its language under each lesson; a
test runs every notebook from top to bottom and fails when the files differ from what
this script writes.

Usage: python docs/notebooks/lessons/make_lessons.py [--check]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path[:0] = [str(ROOT), str(HERE)]
sys.dont_write_bytecode = True  # no __pycache__ beside the notebooks (the site copies it)

from anonymization import k_anonymity, l_diversity, linkage, t_closeness  # noqa: E402
from cells import LessonNotebook  # noqa: E402
from dp_and_measures import differencing, local_dp, measuring, reconstruction  # noqa: E402

from privcore.core.notebooks import notebook_json  # noqa: E402

LANGUAGES = ("en", "zh")

#: The lessons by number (the Learn page's ``ui.learn.LESSONS``): the slug of their file
#: names and the function that writes their cells.
LESSONS: dict[int, tuple[str, Callable[[LessonNotebook], None]]] = {
    1: ("linkage", linkage),
    2: ("k-anonymity", k_anonymity),
    3: ("l-diversity", l_diversity),
    4: ("t-closeness", t_closeness),
    5: ("local-dp", local_dp),
    6: ("measuring", measuring),
    7: ("differencing", differencing),
    8: ("reconstruction", reconstruction),
}


def file_name(number: int, lang: str) -> str:
    """The notebook of lesson ``number`` in ``lang``: ``lesson-1-linkage.en.ipynb``."""
    return f"lesson-{number}-{LESSONS[number][0]}.{lang}.ipynb"


def notebook(number: int, lang: str) -> str:
    """The JSON text of lesson ``number``'s notebook in ``lang``."""
    book = LessonNotebook(lang)
    LESSONS[number][1](book)
    return notebook_json(book.cells, prefix=f"lesson-{number}-{lang}")


def written() -> dict[Path, str]:
    """Every notebook this script writes, by path."""
    return {
        HERE / file_name(number, lang): notebook(number, lang)
        for number in LESSONS
        for lang in LANGUAGES
    }


def stale(expected: dict[Path, str], folder: Path = HERE) -> list[str]:
    """The notebooks missing or different from ``expected``, and any other lesson
    notebook in ``folder`` (one this script no longer writes)."""
    differing = [
        path.name
        for path, content in expected.items()
        if not path.is_file() or path.read_text(encoding="utf-8") != content
    ]
    extra = [path.name for path in sorted(folder.glob("lesson-*.ipynb")) if path not in expected]
    return differing + extra


def main(arguments: list[str]) -> int:
    """Write the notebooks, or with ``--check`` say which differ (exit status 1)."""
    expected = written()
    if "--check" in arguments:
        differing = stale(expected)
        if differing:
            print(
                "The lesson notebooks differ from what make_lessons.py writes: "
                + ", ".join(differing)
                + ". Run python docs/notebooks/lessons/make_lessons.py",
                file=sys.stderr,
            )
            return 1
        return 0
    for path, content in expected.items():
        path.write_text(content, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
