"""The cells of one lesson notebook in one language, written as the Learn page's lessons
are: the same code in English and Chinese, only the words around it change.

A lesson is a function that receives a :class:`LessonNotebook` and adds its cells in
order: :meth:`~LessonNotebook.markdown` takes the English and the Chinese text of a
Markdown cell; :meth:`~LessonNotebook.code` takes the lines of a code cell, where a pair
``(English, Chinese)`` is a comment written in each language and any other string is
code, shared by both. Titles, questions and other sentences the Learn page already says
are read from its catalogue (``privcore/words/locales/learn_<lang>.json``) with
:meth:`~LessonNotebook.words`, so that the notebook and the page say the same thing.
"""

from __future__ import annotations

from textwrap import dedent

from privcore.words.catalog import text

#: One line (or a few) of a code cell: code shared by both languages, or a comment as
#: an (English, Chinese) pair.
Line = str | tuple[str, str]

#: The heading of every exercise, in each language (the Learn page's ``learn.exercise``).
EXERCISE = {"en": "Exercise", "zh": "练习"}


def _block(source: str) -> str:
    """``source`` without its common indentation and its surrounding blank lines."""
    return dedent(source).strip("\n")


class LessonNotebook:
    """The cells of a lesson notebook in ``lang`` ("en" or "zh"), as ``(kind, source)``
    tuples in :attr:`cells`, ready for :func:`privcore.core.notebooks.notebook_json`."""

    def __init__(self, lang: str) -> None:
        if lang not in EXERCISE:
            raise ValueError(f"A lesson notebook is written in 'en' or 'zh', not {lang!r}.")
        self.lang = lang
        self.cells: list[tuple[str, str]] = []

    def pick(self, english: str, chinese: str) -> str:
        """The text of this notebook's language."""
        return english if self.lang == "en" else chinese

    def words(self, key: str, **params: object) -> str:
        """The Learn page's sentence ``key`` in this notebook's language."""
        return text(key, self.lang, **params)

    def markdown(self, english: str, chinese: str) -> None:
        """A Markdown cell, written in both languages."""
        self.cells.append(("markdown", _block(self.pick(english, chinese))))

    def section(self, heading: str, *paragraphs: str, more: tuple[str, str] = ("", "")) -> None:
        """A Markdown cell: the catalogue's ``heading`` (a key) as a level-2 heading, then
        ``paragraphs`` (already in this notebook's language) and ``more`` (an English and
        a Chinese paragraph, when given)."""
        parts = [f"## {self.words(heading)}", *paragraphs, self.pick(*more)]
        self.cells.append(("markdown", "\n\n".join(_block(part) for part in parts if part)))

    def code(self, *lines: Line) -> None:
        """A code cell: its code is the same in both languages, its comments (pairs) are
        in this notebook's language."""
        written = [_block(self.pick(*line) if isinstance(line, tuple) else line) for line in lines]
        self.cells.append(("code", "\n".join(written)))

    def title(self, number: int, english: str, chinese: str) -> None:
        """The first cell: the lesson's title from the catalogue, its introduction
        (``english`` / ``chinese``) and how to run the notebook."""
        heading = self.words(f"learn.l{number}.title")
        how = self.pick(
            "Run it from the repository's root (or wherever `privcore` is installed), "
            "from top to bottom. Every figure is computed by `privcore`, the library "
            "behind the Learn page, on the same data.",
            "请在仓库根目录（或任何安装了 `privcore` 的环境）中从上到下运行。"
            "所有数字都由 Learn 页面背后的库 `privcore` 在同样的数据上算出。",
        )
        self.cells.append(
            ("markdown", f"# {heading}\n\n{_block(self.pick(english, chinese))}\n\n{how}")
        )

    def exercise(self, number: int, **params: object) -> None:
        """The exercise's heading and question (the catalogue's ``learn.l<N>.question``),
        and how to answer it."""
        question = self.words(f"learn.l{number}.question", **params)
        how = self.pick(
            "Write your answer in `answer` below, then run the check: it compares your "
            "answer with the value `privcore` computes and fails when they differ. The "
            "notebook comes with the solution filled in, so that it runs from top to "
            "bottom: work the question out without looking, then put in your own answer.",
            "把你的答案写进下面的 `answer`，再运行检查单元：它把你的答案与 `privcore` "
            "算出的值比较，不一致时就会失败。为了能从上到下运行，笔记本里已经填好了"
            "正确答案：先别看它，自己算出答案，再换进去检查。",
        )
        self.cells.append(("markdown", f"## {EXERCISE[self.lang]}\n\n{question}\n\n{how}"))
