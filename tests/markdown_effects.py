"""What Streamlit's Markdown renderer (1.67: react-markdown, remark-gfm, remark-directive,
remark-emoji and Streamlit's own plugins) would make of a text, besides plain characters.

A model for the tests, ported from the rules the frontend applies
(``streamlit/static/static/js/StreamlitMarkdown.*.js``):

- remark-gfm links bare URLs twice: while parsing the source, and again afterwards in
  the text nodes, whose backslash escapes are already undone — so ``http:\\/\\/x.org``
  is still a link (:func:`links` looks at the text nodes, the stricter of the two);
- a colon before a letter starts a directive (``:red[…]`` is a coloured span, and so is
  ``:red`` alone, an empty one) unless the colon is escaped (:func:`directives`);
- ``:material/name:`` (the source's ``:material/`` becomes ``:material_`` before parsing),
  ``:streamlit:`` (an image) and emoji shortcodes are found in the text nodes
  (:func:`icons`);
- ``&name;`` and ``&#…;`` are characters the source does not show (:func:`references`).
"""

from __future__ import annotations

import re
import unicodedata

_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.IGNORECASE | re.ASCII)
_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII)
_MATERIAL = re.compile(r":material_(\w+):", re.ASCII)
_EMOJI = re.compile(r":\+1:|:-1:|:[\w-]+:", re.ASCII)
_NEEDS_EMOJI = re.compile(r":(?!material/|streamlit:)[\w+-][\w_+-]*:", re.ASCII)
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")


def resolve(source: str) -> str:
    """The characters of the text nodes: backslash escapes undone."""
    return _ESCAPE.sub(r"\1", source)


def _boundary(text: str, index: int) -> bool:
    """remark-gfm's ``previous``: start, white space, punctuation or symbol before."""
    if index == 0:
        return True
    before = text[index - 1]
    return before.isspace() or unicodedata.category(before)[0] in "PS"


def _domain_ok(domain: str) -> bool:
    parts = domain.split(".")
    if len(parts) < 2:
        return False
    return not any(
        part and ("_" in part or not re.search("[A-Za-z0-9]", part)) for part in parts[-2:]
    )


def links(source: str) -> list[str]:
    """The bare URLs and e-mail addresses remark-gfm would turn into links."""
    text = resolve(source)
    found = []
    for pattern in (_URL, _EMAIL):
        pos = 0
        while (m := pattern.search(text, pos)) is not None:
            pos = m.start() + 1  # as mdast-util-find-and-replace goes on after a refusal
            if not _boundary(text, m.start()):
                continue
            if pattern is _URL:
                domain = m.group(2) if m.group(1).lower() != "www" else "www" + m.group(2)
                if not _domain_ok(domain):
                    continue
            elif text[m.start() - 1 : m.start()] == "/" or re.search(r"[-\d_]$", m.group(2)):
                continue
            found.append(m.group(0))
            pos = m.end()
    return found


def _unescaped(source: str):
    """(index, character) of the characters that no backslash escapes."""
    i = 0
    while i < len(source):
        if source[i] == "\\" and i + 1 < len(source) and _ESCAPE.match(source, i):
            i += 2
            continue
        yield i, source[i]
        i += 1


def directives(source: str) -> list[str]:
    """Each text directive that would start (name and what follows, 24 characters)."""
    found = []
    previous = ""
    for i, char in _unescaped(source):
        after = source[i + 1 : i + 2]
        if char == ":" and previous != ":" and after.isascii() and after.isalpha():
            found.append(source[i : i + 25])
        previous = char
    return found


def icons(source: str) -> list[str]:
    """Material icons, the Streamlit logo and emoji the text would show."""
    prepared = source.replace(":material/", ":material_")
    text = resolve(prepared)
    found = [f"material/{name}" for name in _MATERIAL.findall(text)]
    found += ["streamlit"] * text.count(":streamlit:")
    if _NEEDS_EMOJI.search(source):
        found += [m for m in _EMOJI.findall(text) if not m.startswith((":material_", ":streamlit"))]
    return found


def references(source: str) -> list[str]:
    """Character references (``&#58;``, ``&colon;``) that would become other characters."""
    plain = {i for i, char in _unescaped(source) if char == "&"}
    return [m.group(0) for m in _REFERENCE.finditer(source) if m.start() in plain]


def effects(source: str) -> list[str]:
    """Everything the renderer would make of ``source`` other than its characters."""
    return [
        *(f"link {x}" for x in links(source)),
        *(f"directive {x}" for x in directives(source)),
        *(f"icon {x}" for x in icons(source)),
        *(f"reference {x}" for x in references(source)),
    ]
