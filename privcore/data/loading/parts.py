"""A table stored as one file or as a folder of parts, as every engine writes them.

Spark writes a release ``rel.parquet`` as a folder of part files with a ``_SUCCESS``
marker (and ``.crc`` checksums); pandas, Arrow, DuckDB and Spark write Hive-style
partitions, one folder per value (``sex=Female/part-0.parquet``). Every reader of
privcore — the loader and the three engines — takes the same view of such a folder,
which is Hadoop's: files and folders whose names start with ``_`` or ``.`` are
bookkeeping, not data; the data files are the Parquet files below the folder, read in
the order of their paths; a folder named ``column=value`` gives each row below it that
value of ``column`` (the value URL-decoded, ``__HIVE_DEFAULT_PARTITION__`` missing),
the partition columns placed after the files' own columns, outermost first.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from privcore.errors import DataFormatError

#: Endings of the Parquet part files in a folder (Spark's ``.snappy.parquet`` included).
PART_SUFFIXES = (".parquet", ".parq")
#: The value Hive (and Spark) write for a missing partition value.
HIVE_MISSING = "__HIVE_DEFAULT_PARTITION__"


@dataclass(frozen=True)
class TableParts:
    """The files of a table: ``files`` in path order; ``root`` the folder they are in
    (None for a file or a glob); ``partitions`` the Hive partition columns, outermost
    first (empty when the folder has none)."""

    files: tuple[str, ...]
    root: str | None = None
    partitions: tuple[str, ...] = ()

    @property
    def is_folder(self) -> bool:
        return self.root is not None

    def partition_values(self, file: str) -> dict[str, str | None]:
        """The values the partition folders above ``file`` give its rows."""
        if not self.partitions or self.root is None:
            return {}
        folders = Path(file).relative_to(self.root).parts[:-1]
        return dict(_split(folder) for folder in folders)


def _hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def _split(folder: str) -> tuple[str, str | None]:
    name, _, value = folder.partition("=")
    value = unquote(value)
    return unquote(name), None if value == HIVE_MISSING else value


def _folder_parts(root: Path) -> TableParts:
    files = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).parts
        if any(_hidden(part) for part in relative) or not path.is_file():
            continue
        if path.name.lower().endswith(PART_SUFFIXES):
            files.append(path)
    if not files:
        raise DataFormatError(
            f"The folder {root} holds no Parquet parts (*.parquet).",
            code="data.no_parts",
            path=str(root),
        )
    layouts = set()
    for path in files:
        folders = path.relative_to(root).parts[:-1]
        hive = [folder for folder in folders if "=" in folder]
        if hive and len(hive) != len(folders):
            layouts.add(None)  # partition folders mixed with plain ones
        else:
            layouts.add(tuple(_split(folder)[0] for folder in hive))
    if len(layouts) != 1 or None in layouts:
        raise DataFormatError(
            f"The parts of {root} are not partitioned alike: every part must lie under "
            "the same column=value folders (Hive's layout), or none.",
            code="data.mixed_partitions",
            path=str(root),
        )
    (partitions,) = layouts
    return TableParts(tuple(str(p) for p in files), str(root), partitions)


def table_parts(source: str | Path) -> TableParts:
    """The parts of the table at ``source``: a file, a glob of files, or a folder of
    Parquet parts (see the module's rules). A path that matches nothing, or a folder
    without parts, is a clear error."""
    path = Path(source)
    if path.is_file():
        return TableParts((str(path),))
    if path.is_dir():
        return _folder_parts(path)
    if glob.has_magic(str(path)):
        files = sorted(p for p in glob.glob(str(path)) if Path(p).is_file())
        if files:
            return TableParts(tuple(files))
    raise DataFormatError(f"No file matches {path}.", code="data.not_found", path=str(path))
