"""Compressed inputs: a table in a gzip file or alone in a zip archive; zip-bomb checks.

A ``.gz`` file (``samples.csv.gz``) or a ``.zip`` archive with one file (of any format
:func:`privcore.data.load` reads) is unpacked in memory and read like the file itself.
Decompression is streamed with a cap: what a compressed file expands to counts against
the file-size limit (``PRIVCORE_MAX_FILE_MB``), so a decompression bomb stops at the
limit instead of filling the memory, and the clock of the read is checked between
blocks. An archive inside an archive is refused.

Excel workbooks are zip archives too. Before one is parsed, :func:`check_expansion`
compares the sizes its parts declare with a limit, and their compression ratios with
the ratio of Apache POI's zip-bomb check (``ZipSecureFile``: a part larger than its
grace size may expand at most 100-fold).
"""

from __future__ import annotations

import gzip
import io
import zipfile
import zlib
from pathlib import PurePosixPath
from typing import IO

from privcore.data.budget import MB, ReadBudget, expands_too_much
from privcore.errors import DataFormatError

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"

#: Largest expansion of one archive part (Apache POI's MIN_INFLATE_RATIO = 0.01).
MAX_EXPANSION_RATIO = 100
#: Parts smaller than this once expanded are not held to the ratio (small XML parts of a
#: workbook compress far better than data).
RATIO_GRACE_BYTES = 1 * MB

_BLOCK = 1 * MB
# Files that archivers add beside the real content (macOS resource forks, thumbnails).
_JUNK_DIRS = ("__MACOSX/",)
_JUNK_NAMES = (".DS_Store", "Thumbs.db", "desktop.ini")
# Zip archives that are documents, not tables: the part that gives each away.
_DOCUMENTS = {
    ("[Content_Types].xml", "word/document.xml"): (
        "a Word document (.docx); save the table as .xlsx or CSV"
    ),
    ("[Content_Types].xml", "ppt/presentation.xml"): "a PowerPoint file (.pptx)",
    ("mimetype", "content.xml"): "an OpenDocument file (.ods/.odt); save it as .xlsx or CSV",
}


def is_compressed(head: bytes) -> bool:
    """Whether ``head`` starts a gzip file or a zip archive (workbooks included)."""
    return head.startswith((GZIP_MAGIC, ZIP_MAGIC, EMPTY_ZIP_MAGIC))


def not_a_table(what: str) -> DataFormatError:
    """``data.binary``: the file is ``what`` (a PDF document, a Word document…), not a
    table."""
    return DataFormatError(
        f"This file is {what}, not a table. Upload CSV, Excel (.xlsx), Parquet or JSON lines.",
        code="data.binary",
        kind=what,
    )


def open_zip(buffer: IO[bytes]) -> zipfile.ZipFile:
    """The zip archive in ``buffer``; a damaged one is ``data.bad_archive``."""
    try:
        return zipfile.ZipFile(buffer)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise _bad_archive("zip") from exc


def is_workbook(archive: zipfile.ZipFile) -> bool:
    """An Office Open XML workbook (.xlsx/.xlsm) rather than an archive of files."""
    names = set(archive.namelist())
    return "[Content_Types].xml" in names and any(n.startswith("xl/") for n in names)


def check_expansion(archive: zipfile.ZipFile, budget: ReadBudget, *, factor: int) -> None:
    """Refuse an archive whose parts declare more than ``factor`` times the file-size
    limit in all once expanded, or whose part larger than :data:`RATIO_GRACE_BYTES`
    expands more than :data:`MAX_EXPANSION_RATIO`-fold (``data.expands_too_large``,
    ``data.compression_ratio``).

    The sizes are those the archive's directory declares; :mod:`zipfile` never
    decompresses more than a part declares, so the check bounds the work that follows.
    """
    members = archive.infolist()
    if sum(m.file_size for m in members) > factor * budget.max_bytes:
        raise expands_too_much(factor * budget.max_file_mb, factor=factor)
    for member in members:
        if member.file_size <= RATIO_GRACE_BYTES:
            continue
        ratio = member.file_size / max(member.compress_size, 1)
        if ratio > MAX_EXPANSION_RATIO:
            raise DataFormatError(
                f"Part {member.filename} of the file expands {ratio:,.0f}-fold when "
                f"decompressed (at most {MAX_EXPANSION_RATIO}-fold is accepted): it looks "
                "like a decompression bomb and was not opened.",
                code="data.compression_ratio",
                member=member.filename,
                ratio=round(ratio),
                limit=MAX_EXPANSION_RATIO,
            )


def gunzip(buffer: IO[bytes], budget: ReadBudget) -> bytes:
    """The content of the gzip file in ``buffer``, decompressed block by block up to
    the file-size limit (``data.expands_too_large`` beyond it)."""
    try:
        with gzip.GzipFile(fileobj=buffer, mode="rb") as stream:
            return _not_tar(_read_capped(stream, budget))
    except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
        raise _bad_archive("gzip") from exc


def single_member(archive: zipfile.ZipFile, budget: ReadBudget) -> tuple[str, bytes]:
    """The name and content of the one file in a zip archive that is not a workbook.

    Folders and the files archivers add (``__MACOSX/``, ``.DS_Store``, ``Thumbs.db``)
    do not count. No file, or several, is a clear error naming them.
    """
    names = set(archive.namelist())
    for parts, what in _DOCUMENTS.items():
        if names.issuperset(parts):
            raise not_a_table(what)
    files = [m for m in archive.infolist() if not m.is_dir() and not _is_junk(m.filename)]
    if not files:
        raise DataFormatError("The zip archive holds no file.", code="data.archive_empty")
    if len(files) > 1:
        shown = ", ".join(m.filename for m in files[:5]) + (", …" if len(files) > 5 else "")
        raise DataFormatError(
            f"The zip archive holds {len(files)} files ({shown}); it must hold exactly one "
            "table. Upload the table itself, or a zip of that one file.",
            code="data.archive_members",
            count=len(files),
            members=shown,
        )
    member = files[0]
    if member.file_size > budget.max_bytes:
        raise expands_too_much(budget.max_file_mb)
    try:
        with archive.open(member) as stream:
            return member.filename, _not_tar(_read_capped(stream, budget))
    except RuntimeError as exc:  # zipfile: "File … is encrypted, password required …"
        raise DataFormatError(
            "The zip archive is encrypted; unpack it and upload the table itself.",
            code="data.archive_encrypted",
        ) from exc
    except (OSError, EOFError, zlib.error, zipfile.BadZipFile, NotImplementedError) as exc:
        raise _bad_archive("zip") from exc


def inner_name(outer: str | None, member: str | None = None) -> str | None:
    """The name of the unpacked file: the zip member's, or the gzip file's without
    ``.gz`` (``samples.csv.gz`` → ``samples.csv``)."""
    if member is not None:
        return PurePosixPath(member).name
    if outer and outer.lower().endswith(".gz"):
        return outer[:-3]
    if outer and outer.lower().endswith(".tgz"):
        return outer[:-4] + ".tar"
    return outer


def _read_capped(stream: IO[bytes], budget: ReadBudget) -> bytes:
    out = io.BytesIO()
    while True:
        block = stream.read(_BLOCK)
        if not block:
            return out.getvalue()
        out.write(block)
        if out.tell() > budget.max_bytes:
            raise expands_too_much(budget.max_file_mb)
        budget.check_time()


def _not_tar(data: bytes) -> bytes:
    """``data``, unless it is a tar archive (POSIX ``ustar`` magic at byte 257)."""
    if data[257:262] == b"ustar":
        what = "a tar archive; put the table alone in a .gz or .zip file"
        raise DataFormatError(
            f"This file is {what}, not a table. Upload CSV, Excel (.xlsx), Parquet or JSON lines.",
            code="data.binary",
            kind=what,
        )
    return data


def _is_junk(name: str) -> bool:
    path = PurePosixPath(name)
    return name.startswith(_JUNK_DIRS) or path.name in _JUNK_NAMES or path.name.startswith("._")


def _bad_archive(kind: str) -> DataFormatError:
    return DataFormatError(
        f"The {kind} file could not be decompressed (damaged or truncated).",
        code="data.bad_archive",
        kind=kind,
    )
