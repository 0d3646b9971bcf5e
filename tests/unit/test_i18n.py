"""The string catalogues: same keys in both languages, every key used in code exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore.data import ROLES
from privcore.data.roles import _VALUE_RULES

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "privcore" / "words" / "locales"


def catalogue(lang: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for path in sorted(LOCALES.glob(f"*{lang}.json")):
        if path.name == f"{lang}.json" or path.name.endswith(f"_{lang}.json"):
            merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


def test_both_languages_have_the_same_keys():
    en, zh = catalogue("en"), catalogue("zh")
    assert sorted(set(en) - set(zh)) == []
    assert sorted(set(zh) - set(en)) == []


def test_no_empty_strings_and_same_placeholders():
    en, zh = catalogue("en"), catalogue("zh")
    for key in en:
        assert en[key].strip() and zh[key].strip(), key
        assert set(re.findall(r"{(\w+)}", en[key])) == set(re.findall(r"{(\w+)}", zh[key])), key


def test_every_literal_key_in_the_code_exists():
    en = catalogue("en")
    sources = [
        ROOT / "app.py",
        *(ROOT / "pages").glob("*.py"),
        *(ROOT / "ui").rglob("*.py"),
        *(ROOT / "privcore" / "words").glob("*.py"),
    ]
    used = set()
    for path in sources:
        used |= set(re.findall(r"\bt\(\s*\"([a-z_][\w.-]*)\"", path.read_text(encoding="utf-8")))
    assert used, "no keys found: the pattern is wrong"
    assert sorted(used - set(en)) == []


def test_key_families_built_at_run_time_are_complete():
    en = catalogue("en")
    for role in ROLES:
        assert f"role.{role.value}" in en
    for label, _ in _VALUE_RULES:
        assert f"pattern.{label}" in en
    for rule in ("value_pattern", "name_pattern", "unique", "dates", "constant", "default"):
        assert f"reason.{rule}" in en
    from ui.data.hierarchy_editor import METHODS

    for method in METHODS:
        assert f"hierarchy.m.{method}" in en
    for kind in ("profile", "measure", "anonymize", "attack", "audit", "report"):
        assert f"kind.{kind}" in en
    from ui.attack.reconstruction import NOISE_LAWS, OPTIONAL_NUMBERS

    for name in OPTIONAL_NUMBERS:
        assert {f"at.rec_{name}", f"at.rec_{name}_help"} <= set(en)
    for law in NOISE_LAWS:
        assert f"dp.noise_{law}" in en


def test_an_error_code_with_several_wordings_picks_the_one_its_values_fit(monkeypatch):
    from privcore.errors import DataFormatError
    from ui.common import i18n

    monkeypatch.setattr(i18n, "current_language", lambda: "zh")
    rows = DataFormatError("x", code="measure.alignment", rows=[9, 8])
    assert "9, 8" in i18n.error_text(rows) and "行数" in i18n.error_text(rows)
    unique = DataFormatError(
        "x", code="measure.alignment", key="rid", table="release", value="7", count=1
    )
    assert "不唯一" in i18n.error_text(unique) and "rid" in i18n.error_text(unique)
    order = DataFormatError("x", code="measure.row_order", column="ZIP", same=0.3, chance=0.31)
    assert "ZIP" in i18n.error_text(order) and "打乱" in i18n.error_text(order)
    # a code without a wording keeps its English message
    assert i18n.error_text(DataFormatError("plain", code="no.such.code")) == "plain"


def test_escape_md_keeps_the_characters_and_removes_their_meaning():
    from ui.common.i18n import escape_md

    assert escape_md("![x](http://h/x.png)") == "!\\[x\\](http:\u2060//h/x.png)"
    assert escape_md("**b** _i_ `c` ~s~ $f$ <a>") == (
        "\\*\\*b\\*\\* \\_i\\_ \\`c\\` \\~s\\~ \\$f\\$ \\<a\\>"
    )
    assert escape_md(":red[x]") == "\\:red\\[x\\]"  # Streamlit's colour directive
    assert escape_md("line one\n# heading") == "line one # heading"
    assert escape_md("# heading") == "\\# heading"
    assert escape_md("- item") == "\\- item" and escape_md("2. item") == "2\\. item"
    assert escape_md("http://h/x www.h.org a@h.org") == (
        "http:\u2060//h/x www\u2060.h.org a\\@\u2060h.org"
    )
    # ordinary words and numbers are left alone
    for plain in ("marital-status", "0.375", "-2", "+3.5", "run #1", "a|b", "14:32", "k = 3"):
        assert escape_md(plain) == plain


#: Words from data that Streamlit's renderer would turn into a link, a coloured span, an
#: icon, an image or another character (see tests/markdown_effects.py).
HOSTILE = (
    "http://evil.example/x",
    "HTTPS://a.b",
    "Http://EVIL.example",
    "ftp://evil.example/f",
    "see http://www.evil.example/x.",
    "www.evil.example",
    "WWW.evil.example",
    "a@b.example",
    "mailto:a@b.example",
    "x (a.b+c@d-e.example)",
    ":red[x]",
    ":blue-background[y]",
    ":red",
    "ratio:small",
    ":color[z]{foreground=red}",
    ":material/home:",
    ":material_home:",
    ":streamlit:",
    ":smile: :+1:",
    "&#58;red[x] &colon;material/home: http&#58;//evil.example",
    "\\:red[x]",
    "![i](http://127.0.0.1:9/i.png) [l](www.evil.example) <b>h</b> $x$",
)


@pytest.mark.parametrize("word", HOSTILE)
def test_escaped_words_make_no_link_colour_icon_or_other_character(word):
    from privcore.words.catalog import escape_md
    from tests.markdown_effects import effects, resolve

    if word not in ("ftp://evil.example/f", "\\:red[x]"):  # GFM does not link ftp://
        assert effects(word), "the model sees what the renderer would do with the raw word"
    escaped = escape_md(word)
    assert effects(escaped) == []
    in_markup = effects(f"**{escaped}** and :red[{escaped}]")  # only the app's own colour
    assert len(in_markup) == 1 and in_markup[0].startswith("directive :red[")
    # the same characters on screen (the word joiner U+2060 has no width)
    assert resolve(escaped).replace("\u2060", "") == word


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["http", "HTTPS", "://", "www", "WWW", ".", "@", ":", "[", "]", "{"])
        | st.sampled_from(["red", "blue-background", "material/", "_", "streamlit", "&", "#"])
        | st.sampled_from(["58;", "\\", "*", "$", "!", "<", "(", ")", "/", "+", "-", "1", " "])
        | st.text(
            st.characters(exclude_characters="\u2060", exclude_categories=("Cs",)), max_size=3
        ),
        max_size=14,
    ).map("".join)
)
def test_any_escaped_text_keeps_its_characters_and_has_no_effect(word):
    from privcore.words.catalog import escape_md
    from tests.markdown_effects import effects, resolve

    line = " ".join(word.splitlines())
    escaped = escape_md(word)
    assert effects(escaped) == [], (word, escaped)
    assert resolve(escaped).replace("\u2060", "") == line


def test_t_escapes_text_parameters_and_t_plain_does_not():
    from ui.common.i18n import t, t_plain

    assert t("roles.qi_without_hierarchy", columns="**x**").count("\\*") == 4
    assert "**x**" in t_plain("roles.qi_without_hierarchy", columns="**x**")
    assert "5" in t("error.data.session_full", count=5)  # numbers are not text


#: One term, one translation: the English term → the only Chinese words for it, and the
#: other renderings that must not appear in any Chinese string.
GLOSSARY = {
    "distinct l": ("可区分 l", ("相异 l", "不同 l-多样性")),
    "suppress": ("抑制", ("隐匿",)),
    "privacy level": ("隐私水平", ("隐私级别", "隐私等级")),
    "quasi-identifier": ("准标识符", ("准识别符", "半标识符")),
    "sensitive attribute": ("敏感属性", ("敏感字段",)),
    "equivalence class": ("等价类", ("等同类",)),
    "voter roll": ("选民名册", ("选民登记表",)),
    "journalist risk": ("记者风险", ("新闻记者风险",)),
}


@pytest.mark.parametrize("term", sorted(GLOSSARY))
def test_one_term_one_translation(term):
    from privcore.words.catalog import catalogue

    english, chinese = catalogue("en"), catalogue("zh")
    wanted, others = GLOSSARY[term]
    for key, text in chinese.items():
        for other in others:
            assert other not in text, (key, other, text)
    using = [k for k, v in english.items() if term in v.lower() and k in chinese]
    assert using, term
    missing = [k for k in using if wanted not in chinese[k]]
    assert not missing, (term, wanted, [(k, chinese[k]) for k in missing][:5])
