"""The notebooks of the Learn page's lessons (docs/notebooks/lessons/): one per lesson
and language, each run from top to bottom as a reader would run it — every code cell in
order, in one namespace, in a fresh Python process started in the repository's root —
each with an exercise whose check cell fails on a wrong answer, the Chinese code the
English code, and the files what make_lessons.py writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ui.learn import LESSONS
from ui.learn.notebook import NOTEBOOKS, notebook_path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = NOTEBOOKS / "make_lessons.py"
LANGUAGES = ("en", "zh")
FILES = sorted(NOTEBOOKS.glob("lesson-*.ipynb"))
EXERCISE = {"en": "## Exercise", "zh": "## 练习"}
ENV = {
    "PYTHONPATH": str(ROOT),
    "PATH": "/usr/bin:/bin",
    "MPLBACKEND": "Agg",
    "PYTHONDONTWRITEBYTECODE": "1",
}


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def run(path: Path, *replacement: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "privcore.core.notebooks", str(path), *replacement],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=ENV,
    )


def answer_cell(path: Path) -> int:
    """The index of the code cell that sets the exercise's ``answer``."""
    (index,) = [
        i
        for i, cell in enumerate(cells(path))
        if cell["cell_type"] == "code"
        and any(line.startswith("answer = ") for line in source(cell).splitlines())
    ]
    return index


def without_comments(code: str) -> list[str]:
    return [line for line in code.splitlines() if not line.lstrip().startswith("#")]


def test_every_lesson_has_a_notebook_in_both_languages():
    found = {
        (number, lang): notebook_path(number, lang) for number in LESSONS for lang in LANGUAGES
    }
    assert all(found.values()), [key for key, path in found.items() if path is None]
    assert sorted(found.values()) == FILES  # and no other


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_notebook_runs_from_top_to_bottom(path):
    content = json.loads(path.read_text(encoding="utf-8"))
    assert (content["nbformat"], content["nbformat_minor"]) == (4, 5)
    done = run(path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert done.stdout.strip().endswith("code cells")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_notebook_opens_with_its_lesson_and_ends_with_a_checked_exercise(path):
    number, lang = int(path.name.split("-")[1]), path.name.split(".")[-2]
    words = json.loads(
        (ROOT / "privcore" / "words" / "locales" / f"learn_{lang}.json").read_text("utf-8")
    )
    content = cells(path)
    assert content[0]["cell_type"] == "markdown"
    assert source(content[0]).startswith(f"# {words[f'learn.l{number}.title']}\n")
    exercises = [i for i, c in enumerate(content) if source(c).startswith(EXERCISE[lang] + "\n")]
    assert len(exercises) == 1
    answer = answer_cell(path)
    check = source(content[answer + 1])
    assert answer > exercises[0] and content[answer + 1]["cell_type"] == "code"
    assert "assert" in check and "answer" in check


@pytest.mark.parametrize("number", sorted(LESSONS))
def test_the_chinese_code_is_the_english_code(number):
    english, chinese = (cells(notebook_path(number, lang)) for lang in LANGUAGES)
    assert [c["cell_type"] for c in english] == [c["cell_type"] for c in chinese]
    for en, zh in zip(english, chinese, strict=True):
        if en["cell_type"] == "code":
            assert without_comments(source(en)) == without_comments(source(zh))
        else:
            assert source(en) != source(zh) or source(en).startswith("$$")


#: A wrong answer per lesson: the check cell of its exercise must fail on it.
WRONG = {2: "answer = (0, 0)", 3: "answer = 2.5", 7: "answer = 0.25"}


@pytest.mark.parametrize("number", sorted(WRONG))
def test_a_wrong_answer_fails_the_exercises_check(number):
    path = notebook_path(number, "en")
    done = run(path, WRONG[number])
    assert done.returncode == 1, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last == f"failed in cell {answer_cell(path) + 1}: AssertionError"


def test_the_notebooks_are_what_make_lessons_writes():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr


CHECKING = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import make_lessons
copy = Path(sys.argv[2])
expected = {}
for path, content in make_lessons.written().items():
    expected[copy / path.name] = content
    (copy / path.name).write_text(content, encoding="utf-8")
first = min(expected)
first.write_text(expected[first] + " ", encoding="utf-8")
(copy / "lesson-9-gone.en.ipynb").write_text("{}", encoding="utf-8")
print(" ".join(make_lessons.stale(expected, copy)))
"""


def test_the_check_names_a_changed_notebook_and_one_no_longer_written(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", CHECKING, str(NOTEBOOKS), str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=ENV,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    first = min(path.name for path in FILES)
    assert done.stdout.split() == [first, "lesson-9-gone.en.ipynb"]
