"""What a file is: its format (from its first bytes, then its name), the encoding of a
text file (:func:`detect_encoding`) and the delimiter of its lines
(:func:`sniff_delimiter`)."""

from __future__ import annotations

import csv
from collections import Counter

from privcore.data import archives
from privcore.data.loading import sources
from privcore.data.loading.dataset import TEXT_FORMATS
from privcore.data.loading.sources import _suffix
from privcore.errors import DataFormatError

_DELIMITERS = (",", ";", "\t", "|")
_MAGIC = {
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"GIF8": "a GIF image",
    b"\xff\xd8\xff": "a JPEG image",
    b"\x7fELF": "a program (ELF binary)",
    b"Rar!": "a RAR archive",
    b"7z\xbc\xaf": "a 7-Zip archive",
    b"\xd0\xcf\x11\xe0": "an old Office file (.xls/.doc); save it as .xlsx or CSV",
}


def _detect_format(name: str | None, head: bytes) -> str:
    """Format from the content's magic bytes first, then from the file extension."""
    if head.startswith(archives.ZIP_MAGIC):
        return "xlsx"
    if head.startswith(b"PAR1"):
        return "parquet"
    for magic, what in _MAGIC.items():
        if head.startswith(magic):
            raise archives.not_a_table(what)
    suffix = _suffix(name)
    if suffix in ("jsonl", "ndjson", "json"):
        return "jsonl"
    if suffix in ("xlsx", "xlsm", "parquet", "pq"):
        # The content did not start like one: say so instead of a parser error.
        raise DataFormatError(
            f"The file is named .{suffix} but its content is not in that format.",
            code="data.wrong_extension",
            suffix=suffix,
        )
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"{") and suffix not in TEXT_FORMATS:
        return "jsonl"
    return "csv"


def detect_encoding(data: bytes) -> str:
    """Guess the text encoding of ``data`` (a sample or the whole file).

    Order: byte-order marks (UTF-8, UTF-16); strict UTF-8; GB18030 when nearly every
    non-ASCII character decoded is a common (GB2312) character — Latin-1 bytes also
    decode as GB18030, but to rare characters; Windows-1252 (which reads Latin-1 text
    too). Anything else raises :class:`DataFormatError` (``data.unknown_encoding``).
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if b"\x00" in data[:8192]:
        utf16 = _utf16_without_bom(data[:8192])
        if utf16:
            raise DataFormatError(
                f"This looks like {utf16} text without a byte-order mark, which cannot be "
                "read reliably. Save it as UTF-8 and try again.",
                code="data.utf16_no_bom",
                encoding=utf16,
            )
        raise DataFormatError(
            "This looks like a binary file, not a text table (it contains NUL bytes).",
            code="data.binary",
            kind="binary",
        )
    trimmed = _trim_partial_char(data)
    try:
        trimmed.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        text = trimmed.decode("gb18030")
    except UnicodeDecodeError:
        text = None
    if text is not None:
        counts = Counter(ch for ch in text if ord(ch) > 0x7F)
        common = sum(n for ch, n in counts.items() if _is_gb2312(ch))
        total = sum(counts.values())
        if total and common / total >= 0.9:
            return "gb18030"
    try:
        trimmed.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        pass
    # Bytes that Windows-1252 leaves undefined are control characters in Latin-1, never
    # text: the file is in another encoding (Shift-JIS, MacRoman, ...). Reading it as
    # Latin-1 would give garbled names and values without a word.
    raise DataFormatError(
        "The text encoding of this file could not be recognized (it is not UTF-8, "
        "UTF-16 with a byte-order mark, GB18030/GBK or Windows-1252). Save it as UTF-8 "
        "and try again.",
        code="data.unknown_encoding",
    )


def _utf16_without_bom(sample: bytes) -> str | None:
    """The UTF-16 variant ("UTF-16-LE" or "UTF-16-BE") when the NUL bytes sit on one byte
    of the pairs only (the high byte of ASCII characters); None for any other data."""
    n = len(sample) // 2
    if n < 4:
        return None
    even, odd = sample[0 : 2 * n : 2].count(0) / n, sample[1 : 2 * n : 2].count(0) / n
    if odd >= 0.2 and even <= 0.01:
        return "UTF-16-LE"
    if even >= 0.2 and odd <= 0.01:
        return "UTF-16-BE"
    return None


def _is_gb2312(ch: str) -> bool:
    try:
        ch.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def _trim_partial_char(data: bytes) -> bytes:
    """Cut a sample at its last line end so no multi-byte character is split."""
    if len(data) < sources._SAMPLE_BYTES:
        return data
    cut = data.rfind(b"\n")
    return data[: cut + 1] if cut > 0 else data


def sniff_delimiter(lines: list[str]) -> str:
    """The delimiter that splits the first lines into the most consistent field counts.

    Candidates: comma, semicolon, tab, pipe. Each line is split with :mod:`csv` (so
    quoted delimiters do not count); the winner has the most lines whose field count
    equals the header's, then the most fields.
    """
    best, best_score = ",", (-1.0, 0)
    for delim in _DELIMITERS:
        rows = list(csv.reader(lines, delimiter=delim))
        if not rows:
            continue
        width = len(rows[0])
        if width < 2:
            continue
        agree = sum(1 for row in rows if len(row) == width) / len(rows)
        score = (agree, width)
        if score > best_score:
            best, best_score = delim, score
    return best
