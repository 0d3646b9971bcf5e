"""A note: a sentence in English that also carries a code and its parameters.

The library explains what it assumed or left out in notes ("PL of age: constant
column", "Read as utf-8 text, comma-separated."). A :class:`Note` *is* that English
sentence (a ``str``: it prints, compares, joins and goes into JSON as the sentence), and
also carries ``code`` and ``params`` so that an interface can say the same thing in
another language from a catalogue of codes (``note.<code>``), falling back to the
sentence where it has no words for the code.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Note"]


class Note(str):
    """An English sentence with a ``code`` and ``params`` (plain values)."""

    code: str
    params: dict[str, Any]

    def __new__(cls, code: str, message: str, **params: Any) -> Note:
        note = super().__new__(cls, message)
        note.code = code
        note.params = params
        return note

    def __reduce__(self):  # pickled (caches, sessions) with its code and parameters
        return (_rebuild, (self.code, str(self), self.params))

    def __repr__(self) -> str:
        return f"Note({self.code!r}, {str(self)!r})"


def _rebuild(code: str, message: str, params: dict[str, Any]) -> Note:
    return Note(code, message, **params)
